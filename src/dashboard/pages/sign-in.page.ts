import { csrfField, notice, page, type Flash } from '../html.js';
import { html, when } from '../../platform/html.js';

export function signInPage(opts: { csrf: string; email?: string; error?: string; flash?: Flash }): string {
  return page({
    title: 'Sign in',
    body: html`<div class="signin">
      <h1>Sign in to the dashboard</h1>
      ${notice(opts.flash)}
      ${when(opts.error, () => html`<div class="notice error" role="alert" id="sign-in-error">${opts.error}</div>`)}
      <form class="card" method="post" action="/dashboard/sign-in">
        ${csrfField(opts.csrf)}
        <label for="email">Email address</label>
        <input
          type="email"
          id="email"
          name="email"
          autocomplete="username"
          required
          value="${opts.email ?? ''}"
        />
        <label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required />
        <div class="actions"><button type="submit">Sign in</button></div>
      </form>
      <p><a href="/dashboard/forgot-password">Forgot password?</a></p>
      <p><a href="/dashboard/sso" id="sso-link">Sign in with your organisation</a> (single sign-on)</p>
      <p class="muted small">
        No account? The operator of this service creates users with <code>certsvc user create</code>.
      </p>
    </div>`,
  });
}

// The second step of a sign-in with two-factor on: a code of the app, or a recovery code.
export function signInCodePage(opts: { csrf: string; error?: string }): string {
  return page({
    title: 'Two-factor sign-in',
    body: html`<div class="signin">
      <h1>Two-factor sign-in</h1>
      ${when(opts.error, () => html`<div class="notice error" role="alert" id="sign-in-error">${opts.error}</div>`)}
      <form class="card" method="post" action="/dashboard/sign-in/code">
        ${csrfField(opts.csrf)}
        <label for="code">Code</label>
        <input
          type="text"
          id="code"
          name="code"
          autocomplete="one-time-code"
          spellcheck="false"
          autocapitalize="off"
          maxlength="40"
          required
          aria-describedby="code-help"
        />
        <p class="hint" id="code-help">
          The 6-digit code your authenticator app shows now, or one of your recovery codes (each works once).
        </p>
        <div class="actions"><button type="submit">Sign in</button></div>
      </form>
      <p class="small"><a href="/dashboard">Start again</a></p>
    </div>`,
  });
}

export const FORGOT_PASSWORD_SENT =
  'If an account exists for that address, we have sent a link to reset its password. The link works once, within one hour.';

// "Forgot password": the same answer whether or not the address is a user's.
export function forgotPasswordPage(opts: { csrf: string; sent?: boolean; error?: string }): string {
  return page({
    title: 'Forgot password',
    body: html`<div class="signin">
      <h1>Forgot your password?</h1>
      ${when(opts.sent, () => html`<div class="notice ok" role="status" id="forgot-sent">${FORGOT_PASSWORD_SENT}</div>`)}
      ${when(opts.error, () => html`<div class="notice error" role="alert">${opts.error}</div>`)}
      <form class="card" method="post" action="/dashboard/forgot-password">
        ${csrfField(opts.csrf)}
        <label for="email">Email address</label>
        <input type="email" id="email" name="email" autocomplete="username" required />
        <div class="actions"><button type="submit">Send me a link</button></div>
      </form>
      <p class="small"><a href="/dashboard">Back to sign in</a></p>
    </div>`,
  });
}
