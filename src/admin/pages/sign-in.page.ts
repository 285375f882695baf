import { csrfField, type Flash } from '../../dashboard/html.js';
import { html, when } from '../../platform/html.js';
import { adminPage } from './frame.js';

function error(text: string | undefined) {
  return when(text, () => html`<div class="notice error" role="alert" id="sign-in-error">${text}</div>`);
}

export function signInPage(opts: { csrf: string; email?: string; error?: string; flash?: Flash }): string {
  return adminPage({
    title: 'Operator sign-in',
    flash: opts.flash,
    body: html`<div class="signin">
      <h1>Sign in to the operators' console</h1>
      ${error(opts.error)}
      <form class="card" method="post" action="/admin/sign-in">
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
      <p class="muted small">
        For the people who run this service. Operators are made with <code>certsvc admin create</code>; the
        people of an organisation sign in at <a href="/dashboard">the dashboard</a>.
      </p>
    </div>`,
  });
}

// After the password: set up two-factor sign-in (first time) or give the code.
export function twoFactorPage(opts: {
  csrf: string;
  email: string;
  setup?: { secret: string; uri: string };
  error?: string;
}): string {
  const codeField = html`<label for="code">Code</label>
    <input
      type="text"
      id="code"
      name="code"
      inputmode="numeric"
      autocomplete="one-time-code"
      pattern="[0-9 ]{6,7}"
      maxlength="7"
      required
    />`;
  const signOut = html`<form method="post" action="/admin/sign-out">
    ${csrfField(opts.csrf)}<button type="submit" class="secondary">Cancel and sign out</button>
  </form>`;
  if (opts.setup) {
    return adminPage({
      title: 'Set up two-factor sign-in',
      body: html`<div class="signin">
        <h1>Set up two-factor sign-in</h1>
        ${error(opts.error)}
        <div class="card">
          <p>
            Operators sign in with a code from an authenticator app as well as the password. Add this account
            to your app (${opts.email}), then type the 6-digit code it shows.
          </p>
          <p><a href="${opts.setup.uri}" id="totp-link">Open in an authenticator app</a></p>
          <p>Or type the secret by hand:</p>
          <code id="totp-secret" data-testid="totp-secret">${opts.setup.secret}</code>
          <form method="post" action="/admin/two-factor">
            ${csrfField(opts.csrf)} ${codeField}
            <div class="actions"><button type="submit">Turn on two-factor sign-in</button></div>
          </form>
        </div>
        ${signOut}
      </div>`,
    });
  }
  return adminPage({
    title: 'Two-factor sign-in',
    body: html`<div class="signin">
      <h1>Two-factor sign-in</h1>
      ${error(opts.error)}
      <form class="card" method="post" action="/admin/two-factor">
        ${csrfField(opts.csrf)}
        <p>Type the 6-digit code your authenticator app shows for ${opts.email}.</p>
        ${codeField}
        <div class="actions"><button type="submit">Verify</button></div>
      </form>
      ${signOut}
    </div>`,
  });
}
