import { MIN_PASSWORD_LENGTH } from '../../modules/users/users.service.js';
import { EMPTY, html, when, type Html } from '../../platform/html.js';
import { csrfField, dateTime, notice, type Flash } from '../html.js';
import type { userFrame } from '../session.js';
import { settingsPage } from './settings-nav.js';

// Settings > Your profile (decisions 21): the signed-in user's password and two-factor sign-in, and
// for owners the account's "require two-factor for everyone".

export interface ProfileView {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  twoFactorEnabledAt: string | null;
  recoveryCodesLeft: number;
  /** The secret being set up (two-factor off, "Turn on" pressed). */
  pending?: { secret: string; uri: string };
  /** Shown once, right after two-factor was turned on. */
  recoveryCodes?: string[];
  requireTwoFactor: boolean;
  /** The message of a refused form, beside the form it came from. */
  error?: { form: 'password' | 'confirm' | 'disable'; text: string };
}

function errorOf(view: ProfileView, form: NonNullable<ProfileView['error']>['form']): Html {
  return view.error?.form === form ? notice({ kind: 'error', text: view.error.text }) : EMPTY;
}

function passwordSection(view: ProfileView): Html {
  return html`<section class="card" aria-labelledby="password-title">
    <h2 id="password-title">Password</h2>
    ${errorOf(view, 'password')}
    <form method="post" action="/dashboard/settings/profile/password">
      ${csrfField(view.user.csrf)}
      <label for="current">Current password</label>
      <input type="password" id="current" name="current" autocomplete="current-password" required />
      <label for="new-password">New password</label>
      <input
        type="password"
        id="new-password"
        name="password"
        autocomplete="new-password"
        minlength="${MIN_PASSWORD_LENGTH}"
        required
      />
      <label for="again">New password again</label>
      <input type="password" id="again" name="again" autocomplete="new-password" required />
      <p class="hint">At least ${MIN_PASSWORD_LENGTH} characters. Your other sessions are signed out.</p>
      <div class="actions"><button type="submit">Change password</button></div>
    </form>
  </section>`;
}

function recoveryCodesBox(codes: string[]): Html {
  return html`<section class="newkey" aria-labelledby="codes-title" data-once>
    <h2 id="codes-title">Your recovery codes</h2>
    <p>
      <strong>Keep them somewhere safe now: they are shown only this once.</strong> Each signs you in once in
      place of a code of your app, if you lose your phone.
    </p>
    <ol class="recovery-codes">
      ${codes.map((c) => html`<li><code data-testid="recovery-code">${c}</code></li>`)}
    </ol>
  </section>`;
}

function setUpForm(view: ProfileView, pending: { secret: string; uri: string }): Html {
  return html`<p>
      Add this account to your authenticator app: open the link on the phone that has the app, or type the
      secret into it.
    </p>
    <p>Secret: <code data-testid="totp-secret">${pending.secret}</code></p>
    <p><a href="${pending.uri}" data-testid="totp-uri">${pending.uri}</a></p>
    ${errorOf(view, 'confirm')}
    <form method="post" action="/dashboard/settings/profile/two-factor/confirm">
      ${csrfField(view.user.csrf)}
      <label for="code">Code</label>
      <input
        type="text"
        id="code"
        name="code"
        inputmode="numeric"
        autocomplete="one-time-code"
        maxlength="10"
        required
      />
      <p class="hint">The 6-digit code the app shows now, to confirm.</p>
      <div class="actions"><button type="submit">Turn on two-factor sign-in</button></div>
    </form>`;
}

function twoFactorSection(view: ProfileView): Html {
  if (view.twoFactorEnabledAt) {
    return html`<section class="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in</h2>
      <p id="two-factor-state">
        On since ${dateTime(view.twoFactorEnabledAt)}. Recovery codes left: ${view.recoveryCodesLeft}.
      </p>
      ${errorOf(view, 'disable')}
      <form method="post" action="/dashboard/settings/profile/two-factor/disable">
        ${csrfField(view.user.csrf)}
        <label for="off-password">Password</label>
        <input type="password" id="off-password" name="password" autocomplete="current-password" required />
        <label for="off-code">Code</label>
        <input type="text" id="off-code" name="code" autocomplete="one-time-code" maxlength="40" required />
        <div class="actions">
          <button type="submit" class="secondary">Turn off two-factor sign-in</button>
        </div>
      </form>
    </section>`;
  }
  return html`<section class="card" aria-labelledby="two-factor-title">
    <h2 id="two-factor-title">Two-factor sign-in</h2>
    <p id="two-factor-state">
      Off. With it on, signing in asks for a code of an authenticator app (TOTP) after your password.
    </p>
    ${
      view.pending
        ? setUpForm(view, view.pending)
        : html`<form method="post" action="/dashboard/settings/profile/two-factor/start">
            ${csrfField(view.user.csrf)}
            <div class="actions"><button type="submit">Set up two-factor sign-in</button></div>
          </form>`
    }
  </section>`;
}

function requireSection(view: ProfileView): Html {
  if (view.user.role !== 'owner') return EMPTY;
  return html`<section class="card" aria-labelledby="require-title">
    <h2 id="require-title">Two-factor sign-in for everyone</h2>
    <p id="require-state">
      ${
        view.requireTwoFactor
          ? 'Required: every user of the organisation signs in with a code, and sets it up first.'
          : 'Not required: each user chooses.'
      }
    </p>
    <form method="post" action="/dashboard/settings/profile/require-two-factor">
      ${csrfField(view.user.csrf)}
      <input type="hidden" name="require" value="${view.requireTwoFactor ? 'off' : 'on'}" />
      <div class="actions">
        <button type="submit" class="secondary">
          ${view.requireTwoFactor ? 'Stop requiring two-factor sign-in' : 'Require two-factor sign-in for everyone'}
        </button>
      </div>
    </form>
  </section>`;
}

export function profilePage(view: ProfileView): string {
  return settingsPage(
    { user: view.user, title: 'Your profile', current: 'profile' },
    html`<h1>Your profile</h1>
      ${notice(view.flash)}
      <p>Signed in as <bdi>${view.user.email}</bdi>.</p>
      ${when(view.recoveryCodes, () => recoveryCodesBox(view.recoveryCodes!))} ${twoFactorSection(view)}
      ${passwordSection(view)} ${requireSection(view)}`,
  );
}
