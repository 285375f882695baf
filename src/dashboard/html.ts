import { formatDateUtc } from '../modules/verify/verify-page.dates.js';
import { FAVICON_LINK } from '../platform/http/favicon.js';
import { EMPTY, html, safe, type Html } from '../platform/html.js';
import { DASHBOARD_CSS, DASHBOARD_SCRIPT_PATH } from './assets.js';
import { can, type Permission, type Role } from '../modules/shared/roles.js';

// The dashboard's page frame and its own small helpers, built with the `html` tag of
// platform/html.ts. Values people typed (names, template names, reasons) are shown in `typed()`,
// which isolates them in their own direction (dir="auto"), so a right-to-left name reads right.

export function typed(value: string | null | undefined, tag: 'span' | 'bdi' = 'bdi'): Html {
  return tag === 'bdi' ? html`<bdi>${value ?? ''}</bdi>` : html`<span dir="auto">${value ?? ''}</span>`;
}

export function dateTime(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">never</span>`;
  const shown = `${formatDateUtc(iso)}, ${iso.slice(11, 16)} UTC`;
  return html`<time datetime="${iso}">${shown}</time>`;
}

export function date(iso: string): Html {
  return html`<time datetime="${iso}">${formatDateUtc(iso)}</time>`;
}

// The CSRF token of the session, in every state-changing form.
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}" />`;
}

export interface Flash {
  kind: 'ok' | 'error' | 'warn';
  text: string;
}

export function notice(flash: Flash | undefined): Html {
  if (!flash) return EMPTY;
  const role = flash.kind === 'error' ? 'alert' : 'status';
  return html`<div class="notice ${flash.kind}" role="${role}">${flash.text}</div>`;
}

export interface PageFrame {
  title: string;
  // The nav entry of this page, for aria-current; undefined for pages outside the nav.
  section?: 'home' | 'certificates' | 'templates' | 'settings';
  user?: { email: string; accountName: string; csrf: string; role: Role };
  // Module scripts of this page besides the dashboard's one script (the studio's), from 'self'.
  scripts?: string[];
  body: Html;
  /** Another door's top bar and name in the title (the operators' console, src/admin/). */
  door?: { header: Html; name: string };
}

// The menu shows only what the user's role may open (modules/shared/roles.ts).
const NAV: { id: PageFrame['section']; href: string; label: string; permission: Permission }[] = [
  { id: 'home', href: '/dashboard', label: 'Home', permission: 'read' },
  { id: 'certificates', href: '/dashboard/certificates', label: 'Certificates', permission: 'read' },
  { id: 'templates', href: '/dashboard/templates', label: 'Templates', permission: 'read' },
  { id: 'settings', href: '/dashboard/settings', label: 'Settings', permission: 'read' },
];

function header(frame: PageFrame): Html {
  if (!frame.user) {
    return html`<header class="top">
      <div class="bar"><span class="brand">certsvc</span></div>
    </header>`;
  }
  const role = frame.user.role;
  const links = NAV.filter((n) => can(role, n.permission)).map(
    (n) =>
      html`<li>
        <a href="${n.href}" ${safe(n.id === frame.section ? ' aria-current="page"' : '')}>${n.label}</a>
      </li>`,
  );
  return html`<header class="top">
    <div class="bar">
      <a class="brand" href="/dashboard">certsvc</a>
      <nav aria-label="Dashboard">
        <ul>
          ${links}
        </ul>
      </nav>
      <div class="who">
        <span><bdi>${frame.user.accountName}</bdi> · ${frame.user.email}</span>
        <form method="post" action="/dashboard/sign-out">
          ${csrfField(frame.user.csrf)}<button type="submit">Sign out</button>
        </form>
      </div>
    </div>
  </header>`;
}

export function page(frame: PageFrame): string {
  return String(
    html`<!doctype html>
      <html lang="en" dir="ltr">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="robots" content="noindex" />
          <meta name="referrer" content="same-origin" />
          <title>${frame.title} · certsvc ${frame.door?.name ?? 'dashboard'}</title>
          ${safe(FAVICON_LINK)}
          <link rel="stylesheet" href="/dashboard/assets/${DASHBOARD_CSS.file}" />
          <script src="${DASHBOARD_SCRIPT_PATH}" defer></script>
          ${(frame.scripts ?? []).map((src) => html`<script type="module" src="${src}"></script>`)}
        </head>
        <body>
          <a class="skip" href="#main">Skip to content</a>
          ${frame.door?.header ?? header(frame)}
          <main id="main" tabindex="-1">${frame.body}</main>
        </body>
      </html> `,
  );
}

// Every dashboard answer: nothing inline, nothing from elsewhere; PDFs may be framed by the
// dashboard's own pages only.
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "frame-src 'self'",
  "connect-src 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

// The pages whose script fetches from the dashboard (the design editor's previews, an import's
// progress) allow connections to the service itself, and nowhere else.
export const DASHBOARD_CSP_SELF_CONNECT = DASHBOARD_CSP.replace("connect-src 'none'", "connect-src 'self'");

export const DASHBOARD_HEADERS: Record<string, string> = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
};

export function errorPage(status: number, message: string, signedIn: boolean): string {
  const title =
    status === 404 ? 'Not found' : status === 429 ? 'Too many attempts' : 'This page cannot be shown';
  return page({
    title,
    body: html`<h1>${title}</h1>
      <div class="card">
        <p id="error-message">${message}</p>
        <p><a href="/dashboard">${signedIn ? 'Back to the dashboard' : 'Go to sign-in'}</a></p>
      </div>`,
  });
}
