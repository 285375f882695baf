import { createHash } from 'node:crypto';
import { FONT_STACK, nameFontFaces } from '../modules/shared/name-fonts.js';

// The dashboard's one stylesheet and one script, served from the service itself so that the pages'
// Content-Security-Policy allows 'self' and nothing inline. The URLs carry a digest of the content:
// they are cached for a year and change whenever the content does.

const CSS = `
${nameFontFaces('/verify/fonts/')}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:#f4f6f8;color:#1c2430;font:16px/1.5 ${FONT_STACK}}
a{color:#1849a9}
a:hover{color:#102a73}
:focus-visible{outline:3px solid #2e6be6;outline-offset:2px}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}
.skip:focus{left:.5rem;top:.5rem}
header.top{background:#14213d;color:#fff}
header.top .bar{max-width:72rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem}
header.top .brand{font-weight:700;font-size:1.1rem;color:#fff;text-decoration:none;margin-right:auto}
header.top nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}
header.top nav a{display:block;color:#e6ecf7;text-decoration:none;padding:.45rem .7rem;border-radius:8px}
header.top nav a:hover{background:#22335c;color:#fff}
header.top nav a[aria-current=page]{background:#fff;color:#14213d;font-weight:600}
header.top .who{display:flex;align-items:center;gap:.6rem;font-size:.9rem;color:#c9d3e6}
header.top .who form{margin:0}
header.top .who button{background:transparent;color:#fff;border:1px solid #8393b5;padding:.3rem .7rem}
.settings-nav ul{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.25rem;border-bottom:1px solid #d5dbe7}
.settings-nav a{display:block;padding:.4rem .7rem;text-decoration:none;border-radius:8px 8px 0 0}
.settings-nav a[aria-current=page]{background:#14213d;color:#fff;font-weight:600}
main{max-width:72rem;margin:0 auto;padding:1.25rem 1rem 3rem}
h1{font-size:1.6rem;line-height:1.25;margin:.25rem 0 1rem}
h2{font-size:1.2rem;margin:0 0 .75rem}
.card{background:#fff;border:1px solid #dde2ea;border-radius:12px;padding:1.1rem 1.2rem;margin-bottom:1.1rem}
.muted{color:#526077}
.small{font-size:.88rem}
.grid{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(9.5rem,1fr))}
.stat{background:#fff;border:1px solid #dde2ea;border-radius:12px;padding:1rem 1.2rem}
.stat dt{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#526077}
.stat dd{margin:.2rem 0 0;font-size:1.6rem;font-weight:700}
/* A date is smaller than the numbers, in a box of their line's height: on one line or two (a narrow card), its card
   is as tall as the others, so a wrapped date never stretches the row. */
.stat dd.date{font-size:1rem;line-height:1.2rem;min-height:2.4rem;display:flex;align-items:center}
.meter{height:.6rem;background:#e4e8ef;border-radius:99px;overflow:hidden;margin-top:.6rem}
.meter span{display:block;height:100%;background:#2e6be6}
progress.bar{display:block;width:100%;height:.8rem;margin:.3rem 0 .9rem;accent-color:#2e6be6}
${Array.from({ length: 21 }, (_, i) => `.meter .w${i * 5}{width:${i * 5}%}`).join('')}
label{display:block;font-weight:600;margin:.8rem 0 .25rem}
.hint{display:block;font-weight:400;font-size:.88rem;color:#526077}
input[type=text],input[type=email],input[type=password],input[type=search],input[type=number],input[type=date],select,textarea{width:100%;max-width:32rem;font:inherit;padding:.55rem .7rem;border:1px solid #8a96a8;border-radius:8px;background:#fff;color:inherit}
textarea{min-height:5rem}
fieldset{border:1px solid #dde2ea;border-radius:10px;margin:.8rem 0;padding:.6rem 1rem .8rem;max-width:32rem}
legend{font-weight:600;padding:0 .3rem}
.check{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.35rem 0}
.check input{width:1.15rem;height:1.15rem}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.55rem 1rem;border-radius:8px;border:1px solid #1849a9;background:#1849a9;color:#fff;cursor:pointer;text-decoration:none;line-height:1.4}
button:hover,.button:hover{background:#102a73;color:#fff}
button.secondary,.button.secondary{background:#fff;color:#1849a9}
button.secondary:hover,.button.secondary:hover{background:#eef3ff;color:#102a73}
button.danger{background:#b42318;border-color:#b42318}
button.danger:hover{background:#8a1a12}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;margin-top:1rem}
.notice{border-radius:10px;padding:.8rem 1rem;margin-bottom:1rem;border:1px solid}
.notice.ok{background:#ecfdf3;border-color:#75e0a7;color:#05603a}
.notice.error{background:#fef3f2;border-color:#fda29b;color:#912018}
.notice.warn{background:#fffaeb;border-color:#fec84b;color:#7a2e0e}
.newkey{background:#fffaeb;border:2px solid #f79009;border-radius:12px;padding:1rem 1.2rem;margin-bottom:1.1rem}
.newkey code{display:block;font-size:1rem;padding:.6rem .7rem;margin:.5rem 0;background:#fff;border:1px solid #dde2ea;border-radius:8px;word-break:break-all;user-select:all}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
.table-wrap{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{width:100%;border-collapse:collapse;background:#fff}
th,td{text-align:start;padding:.55rem .6rem;border-bottom:1px solid #e4e8ef;vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:#526077;white-space:nowrap}
td.num{text-align:end;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:.1rem .55rem;border-radius:99px;font-size:.82rem;font-weight:600;white-space:nowrap}
.badge.Issued,.badge.sent,.badge.created,.badge.active{background:#dcfae6;color:#05603a}
.badge.Revoked,.badge.failed,.badge.revoked{background:#fee4e2;color:#912018}
.badge.Draft,.badge.queued,.badge.sending{background:#eaecf0;color:#344054}
.filters{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end}
.filters label{margin:0 0 .25rem}
.filters div{flex:1 1 12rem}
.pager{display:flex;gap:.6rem;align-items:center;justify-content:space-between;margin-top:.8rem;flex-wrap:wrap}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0}
dl.facts dt{color:#526077}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.preview{width:100%;aspect-ratio:1.414;border:1px solid #dde2ea;border-radius:8px;background:#fff;display:block}
.preview.portrait{aspect-ratio:.707;max-width:28rem}
.templates{display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(min(100%,30rem),1fr))}
.signin{max-width:26rem;margin:3rem auto}
.gallery{list-style:none;padding:0;margin:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(min(100%,16rem),1fr))}
.gallery .preview.portrait{max-width:none}
.actions form{margin:0}
.studio-head{margin:0 0 1rem}
.studio-head .small{margin-right:auto}
.studio{display:grid;gap:1rem;grid-template-columns:minmax(0,1fr) 20rem;align-items:start}
.studio-toolbar{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin-bottom:.6rem}
.studio-toolbar button{padding:.35rem .7rem}
label.inline{display:inline-flex;gap:.35rem;align-items:center;margin:0;font-weight:400}
label.inline select{width:auto}
.design-canvas{position:relative;width:100%;background:#fff;border:1px solid #dde2ea;touch-action:none;user-select:none}
.design-canvas .studio-fallback{border:0;border-radius:0;aspect-ratio:auto;height:100%;min-height:24rem}
.design-pdf{display:block;width:100%;height:100%}
.design-layer{position:absolute;inset:0}
.design-element{position:absolute;min-height:4px;border:1px dashed rgba(46,107,230,.45);cursor:move}
.design-element:hover{border-color:#2e6be6}
.design-element.selected{border:2px solid #2e6be6;background:rgba(46,107,230,.06)}
.design-element.selected{z-index:1}
.design-handle{--h:12px;position:absolute;width:var(--h);height:var(--h);margin:calc(var(--h)/-2);background:#2e6be6;border:2px solid #fff;border-radius:2px;touch-action:none}
.design-handle[data-handle^=n]{top:0}.design-handle[data-handle^=s]{top:100%}.design-handle[data-handle=e],.design-handle[data-handle=w]{top:50%}
.design-handle[data-handle$=w]{left:0}.design-handle[data-handle$=e]{left:100%}.design-handle[data-handle=n],.design-handle[data-handle=s]{left:50%}
.design-handle[data-handle=nw],.design-handle[data-handle=se]{cursor:nwse-resize}.design-handle[data-handle=ne],.design-handle[data-handle=sw]{cursor:nesw-resize}
.design-handle[data-handle=e],.design-handle[data-handle=w]{cursor:ew-resize}.design-handle[data-handle=n],.design-handle[data-handle=s]{cursor:ns-resize}
@media (pointer:coarse){.design-handle{--h:22px}}
.studio-side .card{padding:.8rem 1rem}
.studio-side input,.studio-side select,.studio-side textarea{max-width:100%}
.studio-side label{margin:.5rem 0 .15rem;font-size:.9rem}
.studio-side fieldset{max-width:100%}
/* Room for the numbers up to 500 (the list scrolls, so markers outside its padding would be cut), and each entry's
   first line on its number's line (a button is inline-block: its baseline is its last line's). */
ol.outline{padding-left:2.4rem;margin:0;max-height:16rem;overflow:auto}
ol.outline li{padding:.1rem 0}
ol.outline button.link{vertical-align:top;overflow-wrap:anywhere}
button.link{background:none;border:0;color:#1849a9;padding:.1rem 0;font-weight:400;text-align:start;cursor:pointer}
button.link[aria-current]{font-weight:700;color:#102a73}
button:disabled{opacity:.5;cursor:default}
#design-json{max-width:100%;width:100%;font-size:.85rem}
.name{overflow-wrap:anywhere}
@media (max-width:60rem){.studio{grid-template-columns:1fr}.studio-side{display:flex;flex-direction:column}.studio-side .studio-props{order:-1}}
@media (max-width:40rem){h1{font-size:1.35rem}header.top .who span{display:none}th.opt,td.opt{display:none}dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.4rem}}
`;

// Copies the text of the element named by data-copy (the new API key) and says so. A page that
// answers a POST and must not be posted again on reload (the new key's page: the key is stored
// nowhere, so a reload would make another) turns its history entry into a plain GET of its URL.
function client(): void {
  if (document.querySelector('[data-once]')) history.replaceState(null, '', location.href);
  // An import's page: its counters polled every second until it ends, then the page is reloaded
  // (the result links appear).
  const progress = document.querySelector<HTMLElement>('[data-import-progress]');
  if (progress) {
    const url = progress.dataset.importProgress ?? '';
    const bar = document.getElementById('import-bar') as HTMLProgressElement | null;
    const text = (id: string, value: string) => {
      const el = document.getElementById(id);
      if (el) el.textContent = value;
    };
    const count = (n: number) => n.toLocaleString('en-US');
    const tick = () => {
      fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
        .then(
          (p: {
            state: string;
            done: number;
            rows: number;
            created: number;
            failed: number;
            rowsPerSecond: number | null;
            secondsLeft: number | null;
          }) => {
            if (bar) {
              bar.value = p.done;
              bar.setAttribute('aria-valuenow', String(p.done));
            }
            text('import-done', count(p.done));
            text('import-created', count(p.created));
            text('import-failed', count(p.failed));
            text('import-state', p.state);
            text('import-rate', p.rowsPerSecond === null ? '–' : count(p.rowsPerSecond));
            const left = p.secondsLeft;
            text(
              'import-left',
              left === null ? '–' : left < 60 ? `${left} s` : `${Math.floor(left / 60)} min ${left % 60} s`,
            );
            if (['done', 'cancelled', 'failed'].includes(p.state)) location.reload();
            else setTimeout(tick, 1000);
          },
          () => setTimeout(tick, 3000),
        );
    };
    setTimeout(tick, 1000);
  }
  document.querySelectorAll<HTMLButtonElement>('button[data-copy]').forEach((button) => {
    button.hidden = false;
    button.addEventListener('click', () => {
      const source = document.getElementById(button.dataset.copy ?? '');
      const status = document.getElementById(button.dataset.status ?? '');
      if (!source) return;
      navigator.clipboard.writeText(source.textContent ?? '').then(
        () => status && (status.textContent = 'Copied to the clipboard.'),
        () => status && (status.textContent = 'Copy failed: select the key and copy it by hand.'),
      );
    });
  });
}

const JS = `(${client.toString()})();`;

function versioned(body: string) {
  return { body, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}

export const DASHBOARD_CSS = versioned(CSS);
export const DASHBOARD_JS = versioned(JS);
