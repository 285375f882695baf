import type { AccountView } from '../../modules/accounts/accounts.service.js';
import { html, safe } from '../../platform/html.js';
import { LANGUAGE_NAMES, LANGUAGES } from '../../platform/i18n/i18n.js';
import { LOGO_MAX_TEXT } from '../../platform/limits.js';
import { csrfField, notice, type Flash } from '../html.js';
import type { userFrame } from '../session.js';
import { select } from './components.js';
import { settingsPage } from './settings-nav.js';

/** What was typed, shown again after a refusal (never the file). */
export interface OrganisationTyped {
  name?: string;
  website?: string;
  contactEmail?: string;
  defaultLanguage?: string;
}

// Settings > Organisation: the organisation's profile (issue 29). The name is the issuer every new
// certificate names (its credential, its PDF's signature, its verification page).
export function organisationSettingsPage(opts: {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  account: AccountView;
  typed?: OrganisationTyped;
}): string {
  const { account } = opts;
  const typed = opts.typed ?? {};
  const language = typed.defaultLanguage ?? account.defaultLanguage;
  const logo = account.logo
    ? html`<figure class="logo" id="organisation-logo">
          <img
            src="/dashboard/settings/organisation/logo?v=${account.logo.sha256.slice(0, 16)}"
            alt="Current logo"
            height="80"
          />
          <figcaption class="hint">
            ${account.logo.type === 'image/png' ? 'PNG' : 'JPEG'}, ${Math.ceil(account.logo.size / 1024)} KiB
          </figcaption>
        </figure>
        <label class="check"
          ><input type="checkbox" id="remove-logo" name="removeLogo" value="on" />
          <span>Remove the logo</span></label
        >`
    : html`<p class="hint" id="organisation-logo">No logo yet.</p>`;
  return settingsPage(
    { title: 'organisation', user: opts.user, current: 'organisation' },
    html`<h1>Settings: organisation</h1>
      ${notice(opts.flash)}
      <form
        class="card"
        method="post"
        action="/dashboard/settings/organisation"
        enctype="multipart/form-data"
        id="organisation-settings"
      >
        ${csrfField(opts.user.csrf)}
        <label for="organisation-name">Display name</label>
        <input
          id="organisation-name"
          name="name"
          value="${typed.name ?? account.name}"
          required
          maxlength="200"
        />
        <p class="hint">
          The issuer every certificate issued from now on names: in its credential, its PDF's digital
          signature (a new PDF signing certificate is made for the new name) and its verification page.
          Certificates issued before keep the name they were issued under; their verification page adds the
          new one.
        </p>
        <label for="organisation-website">Website</label>
        <input
          id="organisation-website"
          name="website"
          type="url"
          value="${typed.website ?? account.website ?? ''}"
          placeholder="https://www.example.org"
        />
        <p class="hint">An https:// address. Leave it empty for none.</p>
        <label for="organisation-contact-email">Contact email</label>
        <input
          id="organisation-contact-email"
          name="contactEmail"
          type="email"
          value="${typed.contactEmail ?? account.contactEmail ?? ''}"
        />
        ${select(
          'defaultLanguage',
          'Default language',
          LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_NAMES[l], selected: l === language })),
        )}
        <p class="hint">
          The language of your certificates' verification pages for visitors whose browser asks for none of
          these.
        </p>
        <label for="organisation-logo-file">Logo</label>
        ${logo}
        <input id="organisation-logo-file" name="logo" type="file" accept="image/png,image/jpeg" />
        <p class="hint">
          A PNG or JPEG image of at most ${safe(LOGO_MAX_TEXT)}. Leave it empty to keep the current one.
        </p>
        <div class="actions"><button type="submit">Save</button></div>
      </form>`,
  );
}
