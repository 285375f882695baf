import { html, when, type Html } from '../../platform/html.js';
import { messageFragment, messagesIn, type Language } from '../../platform/i18n/i18n.js';
import { codeOfText } from '../shared/certificate-links.js';
import { cspHash, languageSwitcher, publicPage } from './verify-page.layout.js';
import { switcherStyle } from './verify-page.style.js';
import { CODE_INPUT_MAX_LENGTH } from '../../platform/limits.js';

// The service's front door (GET /) and the code box of GET /verify/: a small page for people who
// arrive without a link, pointing to the dashboard, the API reference and a "Verify a certificate"
// box. Like the verification page it is one self-contained document: inline CSS allowed by its
// hash, no script at all, nothing loaded from anywhere but the language switcher's fonts from the
// service's own /verify/fonts/. The only other difference in its CSP is form-action 'self': the
// code box is a GET form to /verify/, which redirects to /verify/<code>.
// Links are relative, so that the page works under a PUBLIC_BASE_URL with a base path. It speaks the
// reader's language as the verification page does (?lang=, else Accept-Language, else English).

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
:focus-visible{outline:3px solid #1f5fbf;outline-offset:2px}
body{margin:0;background:#f1f3f6;color:#1c2430;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",Arial,sans-serif}
main{max-width:40rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:14px;box-shadow:0 1px 3px rgba(16,24,40,.1),0 1px 2px rgba(16,24,40,.06);padding:1.25rem;margin-bottom:1rem}
h1{margin:0 0 .3rem;font-size:1.6rem;line-height:1.2}
h2{margin:0 0 .3rem;font-size:1.2rem}
p{margin:0 0 .8rem;color:#475467}
form{display:flex;flex-wrap:wrap;gap:.6rem}
label{flex-basis:100%;font-weight:600}
input{flex:1 1 14rem;min-width:0;padding:.6rem .75rem;border:1px solid #98a2b3;border-radius:8px;font:1.05rem/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.06em;text-transform:uppercase}
button{padding:.6rem 1.1rem;border:0;border-radius:8px;background:#1f5fbf;color:#fff;font-family:inherit;font-size:1rem;font-weight:600;line-height:1.3;cursor:pointer}
ul{margin:0;padding:0;list-style:none}
li{padding:.6rem 0;border-bottom:1px solid #eaecf0}
li:last-child{border-bottom:0}
a{color:#1f5fbf;font-weight:600}
li span{display:block;color:#667085;font-size:.92rem}
@media (min-width:40rem){main{padding:2.5rem 1rem}.card{padding:1.5rem 1.75rem}}
`;

// The style of a page at `root` (the way back to the service's root: '' or '../'): the switcher's
// fonts are linked relatively, like everything else.
const styleAt = (root: string) => `${STYLE}${switcherStyle(`${root}verify/fonts/`)}\n`;
const STYLES = { '': styleAt(''), '../': styleAt('../') };

export const FRONT_DOOR_CSP = [
  "default-src 'none'",
  `style-src ${cspHash(STYLES[''])} ${cspHash(STYLES['../'])}`,
  "font-src 'self'",
  // The icon in the head (platform/http/favicon.ts) is a data: URL.
  'img-src data:',
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const FRONT_DOOR_HEADERS: Record<string, string> = {
  'Content-Security-Policy': FRONT_DOOR_CSP,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

// `root` is the relative way back to the service's root from the page's own path ('' or '../').
function codeBox(lang: Language, root: string, code: string): Html {
  const h = messagesIn(lang).html;
  return html`<section class="card" aria-labelledby="verify-title">
<h2 id="verify-title">${h('door.verifyHeading')}</h2>
<p>${h('door.verifyHint')}</p>
<form id="verify-form" method="get" action="${root}verify/">
<label for="verify-code">${h('door.codeLabel')}</label>
<input id="verify-code" name="code" value="${code}" required maxlength="${CODE_INPUT_MAX_LENGTH}" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="7K3M9Q2XRB4D8F1H" dir="ltr">
<button type="submit">${h('door.verifyButton')}</button>
</form>
</section>`;
}

function layout(lang: Language, root: '' | '../', title: Html, body: Html): string {
  const top = html`${languageSwitcher(lang)}\n`;
  return publicPage({ lang, title, style: STYLES[root], noindex: false, top, body });
}

export function renderFrontDoor(lang: Language = 'en'): string {
  const h = messagesIn(lang).html;
  const body = html`<section class="card">
<h1>${h('door.title')}</h1>
<p>${h('door.intro')}</p>
</section>
${codeBox(lang, '', '')}
<nav class="card" aria-label="${h('door.issuers')}">
<ul>
<li><a id="dashboard-link" href="dashboard">${h('door.dashboard')}</a><span>${h('door.dashboardText')}</span></li>
<li><a id="docs-link" href="docs">${h('door.docs')}</a><span>${h('door.docsText')}</span></li>
</ul>
</nav>`;
  return layout(lang, '', h('door.title'), body);
}

// GET /verify/ without a code; `code` is what the visitor typed when it could not be a code.
export function renderCodeBoxPage(code = '', lang: Language = 'en'): string {
  const input = html`<span dir="auto">${code}</span>`;
  const note = when(
    code,
    () =>
      html`<section class="card" id="code-error" role="alert"><p>${messageFragment(lang, 'door.notACode', { input })}</p></section>\n`,
  );
  return layout(
    lang,
    '../',
    messageFragment(lang, 'door.verifyHeading'),
    html`${note}${codeBox(lang, '../', code)}`,
  );
}

// What a visitor typed into the code box: a code in any case, with spaces or dashes, or a whole
// verification link (its last path segment). Undefined when nothing in it can be a code.
export function codeFromInput(input: string): string | undefined {
  let text = input.trim();
  const link = /\/verify\/([^/?#\s]+)\/?(?:[?#].*)?$/.exec(text);
  if (link?.[1]) text = link[1];
  return codeOfText(text);
}
