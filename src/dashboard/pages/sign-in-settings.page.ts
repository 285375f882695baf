import type { SsoView } from '../../modules/sso/sso.service.js';
import type { SsoInput } from '../../modules/sso/sso-settings.js';
import { SSO_ROLE_LABELS } from '../../modules/sso/sso-settings.js';
import { html, safe, when, type Html } from '../../platform/html.js';
import { csrfField, notice, type Flash } from '../html.js';
import type { userFrame } from '../session.js';
import { settingsPage } from './settings-nav.js';

function mapLines(map: Record<string, string>): string {
  return Object.entries(map)
    .map(([value, role]) => `${value}=${role}`)
    .join('\n');
}

// The owner's switch; everyone else sees its state.
function passwordSignInField(owner: boolean, on: boolean): Html {
  return owner
    ? html`<label class="check"
        ><input
          type="checkbox"
          id="password-sign-in"
          name="passwordSignIn"
          value="on"
          ${on ? safe('checked') : ''}
        />
        <span
          >Password sign-in for everyone else
          <span class="hint"
            >Off: only owners may still sign in with a password, so nobody is locked out. Everyone else signs
            in through the provider.</span
          ></span
        ></label
      >`
    : html`<p id="password-sign-in-state">
        Password sign-in for everyone else: ${on ? 'on' : 'off'} (only an owner changes it).
      </p>`;
}

function removeForm(csrf: string): Html {
  return html`<form class="card" method="post" action="/dashboard/settings/sign-in/remove" id="sso-remove">
    ${csrfField(csrf)}
    <p>Turning single sign-on off deletes these settings; everyone then signs in with their password.</p>
    <div class="actions"><button type="submit" class="danger">Turn off single sign-on</button></div>
  </form>`;
}

// Settings > Sign-in: single sign-on with the organisation's OpenID Provider (docs/dashboard.md).
export function signInSettingsPage(opts: {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  sso: SsoView | undefined;
  redirectUri: string;
  startUrl: string;
  /** What was typed, shown again after a refusal (never the secret). */
  typed?: SsoInput;
}): string {
  const { sso, typed } = opts;
  const value = {
    issuerUrl: typed?.issuerUrl ?? sso?.issuerUrl ?? '',
    clientId: typed?.clientId ?? sso?.clientId ?? '',
    allowedDomains: typed?.allowedDomains ?? sso?.allowedDomains.join(', ') ?? '',
    defaultRole: typed?.defaultRole ?? sso?.defaultRole ?? 'viewer',
    roleClaim: typed?.roleClaim ?? sso?.roleClaim ?? '',
    roleMap: typed?.roleMap ?? mapLines(sso?.roleMap ?? {}),
    passwordSignIn: typed?.passwordSignIn ?? sso?.passwordSignIn ?? true,
  };
  const owner = opts.user.role === 'owner';
  return settingsPage(
    { title: 'sign-in', user: opts.user, current: 'sign-in' },
    html`<h1>Settings: sign-in</h1>
      ${notice(opts.flash)}
      <div class="card">
        <h2>Single sign-on (OpenID Connect)</h2>
        <p>
          Your people sign in with your organisation's identity provider (Microsoft Entra ID, Google
          Workspace, Okta, Keycloak…). Register this service there as a web application with the redirect URI
          <code id="sso-redirect-uri">${opts.redirectUri}</code>, then enter what the provider gives below.
        </p>
        ${when(
          sso,
          () =>
            html`<p>
              Single sign-on is on. Your people start it from the sign-in page ("Sign in with your
              organisation") or at <code id="sso-start-url">${opts.startUrl}</code>.
            </p>`,
        )}
      </div>
      <form class="card" method="post" action="/dashboard/settings/sign-in" id="sso-settings">
        ${csrfField(opts.user.csrf)}
        <label for="issuer-url">Issuer URL</label>
        <input
          id="issuer-url"
          name="issuerUrl"
          type="text"
          inputmode="url"
          required
          value="${value.issuerUrl}"
          placeholder="https://login.example.org/realms/staff"
          autocomplete="off"
        />
        <p class="hint">
          Its discovery document is read when you save: ISSUER/.well-known/openid-configuration.
        </p>
        <label for="client-id">Client ID</label>
        <input
          id="client-id"
          type="text"
          name="clientId"
          required
          value="${value.clientId}"
          autocomplete="off"
        />
        <label for="client-secret">Client secret</label>
        <input
          id="client-secret"
          name="clientSecret"
          type="password"
          autocomplete="new-password"
          ${safe(sso ? 'placeholder="set (leave empty to keep it)"' : 'required')}
        />
        ${when(sso, () => html`<p class="hint" id="client-secret-state">A secret is set; it is never shown again.</p>`)}
        <label for="allowed-domains">Allowed email domains</label>
        <input
          id="allowed-domains"
          type="text"
          name="allowedDomains"
          required
          value="${value.allowedDomains}"
          placeholder="example.org, staff.example.org"
          autocomplete="off"
        />
        <p class="hint">Only verified addresses in these domains may sign in, separated by commas.</p>
        <label for="default-role">Role for new users</label>
        <select id="default-role" name="defaultRole">
          ${SSO_ROLE_LABELS.map(
            (r) =>
              html`<option value="${r.role}" ${r.role === value.defaultRole ? safe('selected') : ''}>
                ${r.label}
              </option>`,
          )}
        </select>
        <p class="hint">A person's first sign-in makes them a user with this role. SSO never makes owners.</p>
        <label for="role-claim">Role claim (optional)</label>
        <input
          id="role-claim"
          type="text"
          name="roleClaim"
          value="${value.roleClaim}"
          placeholder="groups"
          autocomplete="off"
        />
        <label for="role-map">Claim values to roles (optional)</label>
        <textarea
          id="role-map"
          name="roleMap"
          rows="4"
          placeholder="certsvc-admins=admin&#10;certsvc-issuers=issuer"
        >
${value.roleMap}</textarea>
        <p class="hint">
          One per line, value=role. A first-time user whose claim holds a listed value gets its role (the
          strongest when several match); existing users keep theirs.
        </p>
        ${passwordSignInField(owner, value.passwordSignIn)}
        <div class="actions"><button type="submit">Save</button></div>
      </form>
      ${when(sso, () => removeForm(opts.user.csrf))}`,
  );
}
