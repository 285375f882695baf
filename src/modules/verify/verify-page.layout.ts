import { createHash } from 'node:crypto';
import { EMPTY, html, safe, when, type Html } from '../../platform/html.js';
import { FAVICON_LINK } from '../../platform/http/favicon.js';
import {
  direction,
  LANGUAGE_NAMES,
  LANGUAGES,
  messageFragment,
  type Language,
} from '../../platform/i18n/i18n.js';
import { browserAsset } from '../../platform/http/browser-assets.js';
import { VERIFY_PAGE_STYLE } from './verify-page.style.js';

// The frame of every page under /verify/: the head (share tags, the inline CSS), the language
// switcher, and the verification page's script.

// The page's script (src/browser/verify.ts), served under its hashed name (verify.routes.ts) at
// /verify/assets/. The pages that load it are /verify/<code>: the link is relative, like the fonts',
// so that the page works under a PUBLIC_BASE_URL with a base path.
export const VERIFY_SCRIPT_PATH = `assets/${browserAsset('verify.js').file}`;

// How a CSP allows one inline style or script: the sha256 of its text.
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

export interface PageMeta {
  title: string;
  description: string;
  url: string;
  image?: string;
}

// Open Graph and Twitter card tags: a shared link previews with the certificate's title and words,
// and, when the page offers the PDF, a picture of its first page (GET /verify/:code/preview.png).
function shareMeta(meta: PageMeta): Html {
  const { title, description } = meta;
  const image = meta.image
    ? html`<meta property="og:image" content="${meta.image}">
<meta property="og:image:type" content="image/png">
<meta property="og:image:alt" content="${title}">
<meta name="twitter:image" content="${meta.image}">
`
    : EMPTY;
  return html`<meta name="description" content="${description}">
<meta property="og:type" content="website">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${meta.url}">
${image}<meta name="twitter:card" content="${meta.image ? 'summary_large_image' : 'summary'}">
<meta name="twitter:title" content="${title}">
<meta name="twitter:description" content="${description}">
`;
}

// "English · Français · ...": one link per language, each in its own language (?lang=xx keeps the
// choice in the address, so a link that is shared keeps it too). Each name is drawn with a font the
// service ships, cut to the names' characters (shared/language-fonts.ts: a few KB each), not with
// the bundled name fonts, which would make every visitor download the whole Arabic, Devanagari and
// CJK fonts.
const switchers = new Map<Language, Html>();
export function languageSwitcher(lang: Language): Html {
  let switcher = switchers.get(lang);
  if (switcher === undefined) {
    const links = LANGUAGES.map(
      (l) =>
        html`<a href="?lang=${l}" lang="${l}" hreflang="${l}"${when(l === lang, () => html` aria-current="true"`)}>${LANGUAGE_NAMES[l]}</a>\n`,
    );
    switcher = html`<nav class="langs" id="languages" aria-label="${messageFragment(lang, 'page.language')}">\n${links}</nav>`;
    switchers.set(lang, switcher);
  }
  return switcher;
}

// A public page of the service (this page, the front door): one self-contained document in the
// reader's language, its CSS inline (`style`, allowed by its hash), `top` above the body in <main>,
// and the verification page's script (an external file) when `script` is set.
export function publicPage(page: {
  lang: Language;
  title: unknown;
  style: string;
  noindex: boolean;
  head?: Html;
  top?: Html;
  body: Html;
  script?: boolean;
}): string {
  return html`<!doctype html>
<html lang="${page.lang}" dir="${direction(page.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${when(page.noindex, () => html`<meta name="robots" content="noindex">\n`)}<meta name="referrer" content="no-referrer">
<title>${page.title}</title>
${safe(FAVICON_LINK)}
${page.head ?? EMPTY}<style>${safe(page.style)}</style>
</head>
<body>
<main>
${page.top ?? EMPTY}${page.body}
</main>
${when(page.script, () => html`<script src="${VERIFY_SCRIPT_PATH}"></script>\n`)}</body>
</html>
`.toString();
}

// The frame of the pages under /verify/: the share tags, and the language switcher (not on the
// error page, which is in English only; the line stays).
export function layout(opts: {
  lang: Language;
  title: string;
  body: Html;
  script: boolean;
  meta?: PageMeta;
  switcher?: boolean;
}): string {
  return publicPage({
    lang: opts.lang,
    title: opts.title,
    style: VERIFY_PAGE_STYLE,
    noindex: true,
    head: opts.meta ? shareMeta(opts.meta) : EMPTY,
    top: opts.switcher === false ? html`\n` : html`${languageSwitcher(opts.lang)}\n`,
    body: opts.body,
    script: opts.script,
  });
}
