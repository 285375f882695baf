import type { HoldView } from '../../modules/imports/held-uploads.js';
import type { UsageView } from '../../modules/usage/usage.schemas.js';
import type { PlanOffer } from '../../modules/usage/usage.service.js';
import { csrfField, type Flash } from '../html.js';
import { html } from '../../platform/html.js';
import type { userFrame } from '../session.js';
import { titledPage } from './components.js';
import { count, quotaHelp } from './quota.js';

// An upload held before it issues anything (issue 29): its rows exceed the certificates the period
// has left. The user issues the first N (N what is left) or cancels; nothing is uploaded again.
export function heldUploadPage(opts: {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  hold: HoldView;
  templateName: string;
  usage: UsageView;
  plans: PlanOffer[];
  error?: string;
}): string {
  const { hold, usage } = opts;
  const remaining = usage.certificates.remaining;
  const left = Math.min(hold.rows, remaining ?? hold.rows);
  const base = `/dashboard/certificates/upload/held/${hold.id}`;
  const label = left === hold.rows ? `Issue all ${count(left)} rows` : `Issue the first ${count(left)}`;
  return titledPage({
    title: 'Confirm the upload',
    section: 'certificates',
    user: opts.user,
    flash: opts.flash,
    body: html`${opts.error ? html`<div class="notice error" role="alert" id="form-error">${opts.error}</div>` : ''}
      <section class="card" id="held-upload">
        <p>
          <bdi>${hold.fileName}</bdi> for <bdi>${opts.templateName}</bdi> has
          <strong id="held-rows">${count(hold.rows)}</strong> row${hold.rows === 1 ? '' : 's'}.
          ${
            remaining === null
              ? 'This account has no monthly limit now (partner contract).'
              : html`This period has
                  <strong id="quota-left">${count(remaining)}</strong>
                  certificate${remaining === 1 ? '' : 's'} left.`
          }
        </p>
        ${
          left === hold.rows
            ? html`<p>Every row fits in what is left now.</p>`
            : left > 0
              ? html`<p>
                  Issue the first ${count(left)} rows of the file now; the other ${count(hold.rows - left)}
                  are reported as over the monthly quota, use no quota, and can be retried from the import's
                  page later.
                </p>`
              : html`<p>Nothing can be issued until the quota is raised or resets.</p>`
        }
        ${quotaHelp(usage, opts.plans)}
        <div class="actions">
          ${
            left > 0
              ? html`<form method="post" action="${base}/start">
                  ${csrfField(opts.user.csrf)}<input type="hidden" name="limit" value="${left}" />
                  <button type="submit" id="issue-first">${label}</button>
                </form>`
              : ''
          }
          <form method="post" action="${base}/cancel">
            ${csrfField(opts.user.csrf)}
            <button type="submit" class="secondary" id="cancel-upload">Cancel</button>
          </form>
        </div>
      </section>`,
  });
}
