import { languageFontCss } from '../shared/language-fonts.js';
import { FONT_STACK, nameFontFaces } from '../shared/name-fonts.js';

// The inline CSS of the verification page (verify.page.ts): allowed by its sha256 hash in the page's
// CSP, so the page loads no stylesheet. The name fonts and the language switcher's fonts come from
// the service's own /verify/fonts/.

/**
 * The language switcher's CSS (verify-page.layout.ts), on this page and the front door's: each name
 * in its shipped font, the fonts under `fontBase` (the relative way to /verify/fonts/).
 */
export function switcherStyle(fontBase: string): string {
  return `.langs{display:flex;flex-wrap:wrap;justify-content:center;gap:.2rem .85rem;margin:0 0 .8rem;font:.9rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.langs a{color:#1f5fbf;font-weight:400}
.langs a[aria-current]{color:#1c2430;font-weight:700;text-decoration:none}
${languageFontCss(fontBase, '.langs')}`;
}

export const VERIFY_PAGE_STYLE = `
${nameFontFaces('fonts/')}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
:focus-visible{outline:3px solid #1f5fbf;outline-offset:2px}
body{margin:0;background:#f1f3f6;color:#1c2430;font:16px/1.5 ${FONT_STACK}}
main{max-width:40rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:14px;box-shadow:0 1px 3px rgba(16,24,40,.1),0 1px 2px rgba(16,24,40,.06);overflow:hidden;margin-bottom:1rem}
.banner{display:flex;align-items:center;gap:.9rem;padding:1.25rem;color:#fff}
.banner.valid{background:#13793f}
.banner.revoked{background:#b42318}
.banner.superseded{background:#1f5fbf}
.banner.expired{background:#b54708}
.banner.unknown{background:#475467}
.banner svg{flex:none;width:3rem;height:3rem}
.banner h1{margin:0;font-size:1.6rem;line-height:1.2;font-weight:700}
.banner p{margin:.2rem 0 0;font-size:.98rem;opacity:.95}
.banner time{white-space:nowrap}
.reason{margin:0;padding:.9rem 1.25rem;background:#fef3f2;color:#7a271a;border-bottom:1px solid #fecdca;overflow-wrap:anywhere}
.reason strong{display:block;font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#b42318}
.replaced{margin:0;padding:.9rem 1.25rem;background:#eff4ff;color:#1c2430;border-bottom:1px solid #c7d7fe;overflow-wrap:anywhere}
#superseded-by{display:inline-block;margin:0 0 .35rem;padding:.55rem 1rem;border-radius:8px;background:#1f5fbf;color:#fff;font-weight:700;text-decoration:none}
.replaced span{display:block;font-size:.9rem;color:#475467}
details.tech{margin-top:.4rem;font-size:.9rem;color:#475467}
details.tech summary{cursor:pointer;color:#1f5fbf}
dl{margin:0;padding:.4rem 1.25rem 1rem}
dl div{padding:.7rem 0;border-bottom:1px solid #eaecf0}
dl div:last-child{border-bottom:0}
dt{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#667085}
dd{margin:.1rem 0 0;font-size:1.05rem;font-weight:600;overflow-wrap:anywhere}
dd.name{font-size:1.45rem;line-height:1.25}
dd.plain{font-size:1rem;font-weight:400}
.code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.08em}
section.check{padding:1.25rem}
section.check h2{margin:0 0 .3rem;font-size:1.2rem}
section.check p{margin:0 0 .8rem;color:#475467}
.drop{display:flex;flex-direction:column;align-items:center;justify-content:center;gap:.25rem;min-height:7.5rem;padding:1rem;border:2px dashed #98a2b3;border-radius:12px;background:#f9fafb;text-align:center;cursor:pointer}
.drop:hover,.drop.dragging,.drop:focus-within{border-color:#1f5fbf;background:#eff4ff}
.drop strong{font-size:1.05rem;color:#1f5fbf}
.drop span{font-size:.9rem;color:#667085}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.drop:focus-within{outline:3px solid #1f5fbf;outline-offset:2px}
.result{margin-top:1rem;padding:.9rem 1rem;border-radius:10px;border:1px solid #d0d5dd;background:#f9fafb}
.check .result p{margin:0;color:inherit}
.result .msg{font-weight:700;font-size:1.05rem}
.check .result .detail{margin-top:.2rem;font-size:.92rem;overflow-wrap:anywhere}
.result[data-result=match]{background:#ecfdf3;border-color:#75e0a7;color:#05603a}
.result[data-result=mismatch],.result[data-result=error],.result[data-result=unsupported]{background:#fef3f2;border-color:#fda29b;color:#912018}
.check .hash{margin:1rem 0 0;font-size:.8rem;color:#667085}
.hash code{display:block;font-size:.78rem;overflow-wrap:anywhere;word-break:break-all}
section.share{padding:1.25rem}
section.share h2{margin:0 0 .6rem;font-size:1.2rem}
.share-actions{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center}
.share-actions input{flex:1 1 14rem;min-width:0;padding:.55rem .7rem;border:1px solid #d0d5dd;border-radius:8px;font:.92rem/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#344054;background:#f9fafb}
.btn{display:inline-block;padding:.55rem 1rem;border:1px solid #1f5fbf;border-radius:8px;background:#fff;color:#1f5fbf;font-family:inherit;font-size:.95rem;font-weight:600;line-height:1.3;text-decoration:none;cursor:pointer}
.btn.primary{background:#0a66c2;border-color:#0a66c2;color:#fff}
.share-actions [role=status]{flex-basis:100%;font-size:.9rem;color:#05603a}
.share-actions [role=status][data-copied=false]{color:#912018}
${switcherStyle('fonts/')}
footer{padding:0 .25rem 1.5rem;font-size:.85rem;color:#475467;text-align:center;overflow-wrap:anywhere}
@media (min-width:40rem){main{padding:2.5rem 1rem}.banner{padding:1.5rem 1.75rem}dl{padding:.4rem 1.75rem 1.2rem}.reason{padding:1rem 1.75rem}section.check{padding:1.5rem 1.75rem}.banner h1{font-size:1.9rem}}
`;
