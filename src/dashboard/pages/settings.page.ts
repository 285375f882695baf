import type { AccountSettings } from '../../modules/accounts/accounts.service.js';
import { csrfField, notice, type Flash } from '../html.js';
import { settingsPage } from './settings-nav.js';
import { html, safe } from '../../platform/html.js';
import type { userFrame } from '../session.js';

// Settings > Sharing: what the public verification page and the certificate email offer.
export function sharingSettingsPage(opts: {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  settings: AccountSettings;
  /** What was typed, shown again after a refusal. */
  typed?: { linkedinOrganizationId?: string; publicDownload?: boolean };
}): string {
  const linkedin = opts.typed?.linkedinOrganizationId ?? opts.settings.linkedinOrganizationId ?? '';
  const publicDownload = opts.typed?.publicDownload ?? opts.settings.publicDownload;
  return settingsPage(
    { title: 'sharing', user: opts.user, current: 'sharing' },
    html`<h1>Settings: sharing</h1>
      ${notice(opts.flash)}
      <form class="card" method="post" action="/dashboard/settings/sharing" id="sharing-settings">
        ${csrfField(opts.user.csrf)}
        <h2>Add to LinkedIn profile</h2>
        <p>
          The verification page and the certificate email offer recipients a link that adds the certificate to
          their LinkedIn profile. With your organisation's LinkedIn page id, LinkedIn shows your page and
          logo; without it, your account name.
        </p>
        <label for="linkedin-organization-id">LinkedIn organisation id</label>
        <input
          id="linkedin-organization-id"
          name="linkedinOrganizationId"
          value="${linkedin}"
          inputmode="numeric"
          autocomplete="off"
          placeholder="e.g. 1337"
        />
        <p class="hint">
          The number in your page's admin address, linkedin.com/company/<strong>1337</strong>/admin. Leave it
          empty to use the account name.
        </p>
        <h2>Download from the verification page</h2>
        <label class="check"
          ><input
            type="checkbox"
            id="public-download"
            name="publicDownload"
            value="on"
            ${publicDownload ? safe('checked') : ''}
          />
          <span
            >Offer "Download PDF" on the public verification page
            <span class="hint"
              >Anyone with the certificate's link or code can then download its PDF (each download is
              counted). Revoked certificates are never offered.</span
            ></span
          ></label
        >
        <div class="actions"><button type="submit">Save</button></div>
      </form>`,
  );
}
