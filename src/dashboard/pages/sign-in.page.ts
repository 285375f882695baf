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
      <p><a href="/dashboard/sso" id="sso-link">Sign in with your organisation</a> (single sign-on)</p>
      <p class="muted small">
        No account? The operator of this service creates users with <code>certsvc user create</code>.
      </p>
    </div>`,
  });
}
