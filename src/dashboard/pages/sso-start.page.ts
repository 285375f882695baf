import { html, when } from '../../platform/html.js';
import { page } from '../html.js';

// "Sign in with your organisation": the email's domain names the account whose provider signs in.
export function ssoStartPage(opts: { email?: string; error?: string }): string {
  return page({
    title: 'Sign in with your organisation',
    body: html`<div class="signin">
      <h1>Sign in with your organisation</h1>
      ${when(opts.error, () => html`<div class="notice error" role="alert" id="sso-error">${opts.error}</div>`)}
      <form class="card" method="get" action="/dashboard/sso">
        <label for="sso-email">Work email</label>
        <input
          type="email"
          id="sso-email"
          name="email"
          autocomplete="username"
          required
          value="${opts.email ?? ''}"
        />
        <div class="actions"><button type="submit">Continue</button></div>
      </form>
      <p class="muted small"><a href="/dashboard">Sign in with a password</a></p>
    </div>`,
  });
}
