import type { AccountSettings } from '../../modules/accounts/accounts.service.js';
import { csrfField, html, notice, page, type Flash } from '../html.js';
import type { userFrame } from '../session.js';

// Settings > Sharing: what the public verification page and the certificate email offer.
export function sharingSettingsPage(opts: {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  settings: AccountSettings;
  /** What was typed, shown again after a refusal. */
  typed?: { linkedinOrganizationId?: string };
}): string {
  const linkedin = opts.typed?.linkedinOrganizationId ?? opts.settings.linkedinOrganizationId ?? '';
  return page({
    title: 'Settings: sharing',
    user: opts.user,
    body: html`<h1>Settings: sharing</h1>
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
        <div class="actions"><button type="submit">Save</button></div>
      </form>`,
  });
}
