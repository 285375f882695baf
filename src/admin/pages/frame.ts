import { csrfField, notice, page, type Flash } from '../../dashboard/html.js';
import { html, when, type Html } from '../../platform/html.js';

// The console's pages: the dashboard's frame and styles under a top bar of their own.

export interface OperatorFrame {
  email: string;
  csrf: string;
}

function header(operator: OperatorFrame | undefined): Html {
  return html`<header class="top">
    <div class="bar">
      <a class="brand" href="/admin">certsvc operators</a>
      ${when(
        operator,
        () =>
          html`<nav aria-label="Console">
              <ul>
                <li><a href="/admin">Accounts</a></li>
              </ul>
            </nav>
            <div class="who">
              <span>${operator!.email}</span>
              <form method="post" action="/admin/sign-out">
                ${csrfField(operator!.csrf)}<button type="submit">Sign out</button>
              </form>
            </div>`,
      )}
    </div>
  </header>`;
}

export function adminPage(opts: { title: string; operator?: OperatorFrame; flash?: Flash; body: Html }) {
  return page({
    title: opts.title,
    door: { header: header(opts.operator), name: 'operators' },
    body: html`${notice(opts.flash)}${opts.body}`,
  });
}

export function adminErrorPage(status: number, message: string): string {
  const title =
    status === 404 ? 'Not found' : status === 429 ? 'Too many attempts' : 'This page cannot be shown';
  return adminPage({
    title,
    body: html`<h1>${title}</h1>
      <div class="card">
        <p id="error-message">${message}</p>
        <p><a href="/admin">Back to the console</a></p>
      </div>`,
  });
}
