import { ROLE_LABELS, type Role } from '../../modules/shared/roles.js';
import { MIN_PASSWORD_LENGTH } from '../../modules/users/users.service.js';
import { html, when } from '../../platform/html.js';
import { csrfField, page } from '../html.js';

// The pages a single-use link opens, signed out: accepting an invitation, choosing a new password.

function passwordForm(opts: { action: string; csrf: string; button: string; error?: string }) {
  return html`${when(opts.error, () => html`<div class="notice error" role="alert" id="link-error">${opts.error}</div>`)}
    <form class="card" method="post" action="${opts.action}">
      ${csrfField(opts.csrf)}
      <label for="password">New password</label>
      <input
        type="password"
        id="password"
        name="password"
        autocomplete="new-password"
        minlength="${MIN_PASSWORD_LENGTH}"
        required
      />
      <p class="hint">At least ${MIN_PASSWORD_LENGTH} characters.</p>
      <div class="actions"><button type="submit">${opts.button}</button></div>
    </form>`;
}

export function invitationPage(opts: {
  token: string;
  csrf: string;
  invitation: { email: string; role: Role; accountName: string };
  error?: string;
}): string {
  const { invitation } = opts;
  return page({
    title: 'Accept the invitation',
    body: html`<div class="signin">
      <h1>Join ${invitation.accountName}</h1>
      <p>
        You are invited as <strong>${ROLE_LABELS[invitation.role]}</strong> with the email address
        <strong id="invited-email">${invitation.email}</strong>. Choose your password to sign in.
      </p>
      ${passwordForm({
        action: `/dashboard/invitations/${opts.token}`,
        csrf: opts.csrf,
        button: 'Accept and sign in',
        error: opts.error,
      })}
    </div>`,
  });
}

export function resetPasswordPage(opts: {
  token: string;
  csrf: string;
  email: string;
  error?: string;
}): string {
  return page({
    title: 'Choose a new password',
    body: html`<div class="signin">
      <h1>Choose a new password</h1>
      <p>
        For <strong id="reset-email">${opts.email}</strong>. Every session of this user ends when it is set.
      </p>
      ${passwordForm({
        action: `/dashboard/reset-password/${opts.token}`,
        csrf: opts.csrf,
        button: 'Set the password',
        error: opts.error,
      })}
    </div>`,
  });
}
