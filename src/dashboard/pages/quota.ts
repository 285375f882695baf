import type { UsageView } from '../../modules/usage/usage.schemas.js';
import type { PlanOffer } from '../../modules/usage/usage.service.js';
import { OVER_QUOTA_REASON } from '../../modules/imports/imports.service.js';
import type { ImportView } from '../../modules/imports/imports.service.js';
import { can, type Role } from '../../modules/shared/roles.js';
import { csrfField, date } from '../html.js';
import { EMPTY, html, type Html } from '../../platform/html.js';

// The quota in view (issue 29): when the period resets and how to get more; why an import's rows
// failed, counted per reason.

export const count = (n: number) => n.toLocaleString('en-US');

// When the quota resets, and how an account gets more: a larger plan or a partner contract, both
// the operator's to give (`certsvc account set-plan`, `certsvc contract ...`).
export function quotaHelp(usage: UsageView, plans: PlanOffer[]): Html {
  const c = usage.certificates;
  if (c.limit === null) {
    return html`<p class="small" id="quota-help">
      Partner contract: there is no monthly limit. The contract's terms are agreed with your operator.
    </p>`;
  }
  const offers = plans.map(
    (p, i) =>
      html`${i ? ', ' : ''}<bdi>${p.name}</bdi>
        ${count(p.monthlyLimit)}${p.name === usage.tier ? ' (this plan)' : ''}`,
  );
  return html`<p class="small" id="quota-help">
    The quota resets on ${date(c.resetAt)}. To issue more before then, ask your operator to move the account
    to a larger plan (certificates a month: ${offers}) or onto a partner contract, which has no monthly limit.
  </p>`;
}

const reasonText = (reason: string, rows: number) =>
  reason === OVER_QUOTA_REASON
    ? `${count(rows)} over the monthly quota`
    : `${count(rows)} rejected: ${reason || 'no reason recorded'}`;

// "3,056 rows failed: 3,056 over the monthly quota", each reason counted, the most frequent first.
export function failureSummary(failed: number, reasons: { reason: string; rows: number }[]): Html {
  if (failed === 0) return EMPTY;
  const listed = reasons.reduce((n, r) => n + r.rows, 0);
  const parts = reasons.map((r) => reasonText(r.reason, r.rows));
  if (listed < failed) parts.push(`${count(failed - listed)} for other reasons (see the results CSV)`);
  const quota = reasons.some((r) => r.reason === OVER_QUOTA_REASON);
  return html`<div class="notice warn" role="status" id="failure-summary">
    <p>
      <strong>${count(failed)} row${failed === 1 ? '' : 's'} failed:</strong>
      ${parts.length > 1 ? '' : html`<span class="reason">${parts[0]}</span>.`}
    </p>
    ${
      parts.length > 1
        ? html`<ul>
            ${parts.map((p) => html`<li class="reason">${p}</li>`)}
          </ul>`
        : ''
    }
    ${
      quota
        ? html`<p class="small">
            Over-quota rows were not issued and use no quota. Once the quota is raised or reset, “Retry the
            failed rows” issues them.
          </p>`
        : ''
    }
  </div>`;
}

// "Retry the failed rows" on an ended import with failed rows, for a role that may issue; once
// retried, the link to the import that retries them.
export function retryFailed(
  imp: ImportView,
  opts: { csrf: string; role: Role | undefined; final: boolean },
): Html {
  if (imp.retriedBy) {
    return html`<p class="small" id="retried-by">
      The failed rows are retried in <a href="/dashboard/imports/${imp.retriedBy}">another import</a>.
    </p>`;
  }
  if (!opts.final || imp.failed === 0 || !opts.role || !can(opts.role, 'issue')) return EMPTY;
  return html`<form method="post" action="/dashboard/imports/${imp.id}/retry" id="retry-failed">
    ${csrfField(opts.csrf)}
    <button type="submit">Retry the failed rows</button>
  </form>`;
}
