import type { AccountOverview } from '../../modules/accounts/accounts.service.js';
import { csrfField, date, type Flash } from '../../dashboard/html.js';
import { html, type Html } from '../../platform/html.js';
import { adminPage, type OperatorFrame } from './frame.js';

// The console: every account with its plan, this period's usage and contract; and one account with
// the forms that change it.

function usage(a: AccountOverview): string {
  const limit = a.usage.limit === null ? 'unlimited' : a.usage.limit.toLocaleString('en');
  return `${a.usage.used.toLocaleString('en')} of ${limit}`;
}

function contract(a: AccountOverview): Html {
  if (!a.contract) return html`<span class="muted">none</span>`;
  return html`partner since
  ${date(a.contract.startsAt)}${a.contract.endsAt ? html`, until ${date(a.contract.endsAt)}` : ''}`;
}

function status(a: AccountOverview): Html {
  return a.suspendedAt
    ? html`<span class="badge revoked">Suspended</span>`
    : html`<span class="badge active">Active</span>`;
}

function planSelect(plans: string[], current?: string): Html {
  return html`<select id="plan" name="plan">
    ${plans.map((p) => html`<option value="${p}" ${p === current ? html`selected` : ''}>${p}</option>`)}
  </select>`;
}

// Previous and next pages of the list, with where this page is (50 accounts a page).
function pager(opts: { page: number; pages: number; total: number }): Html {
  if (opts.pages <= 1 && opts.page === 1) return html``;
  return html`<nav class="pager" aria-label="Pages of accounts">
    ${opts.page > 1 ? html`<a href="/admin?page=${Math.min(opts.page - 1, opts.pages)}" rel="prev">Previous</a>` : ''}
    <span>Page ${opts.page} of ${opts.pages} (${opts.total} accounts)</span>
    ${opts.page < opts.pages ? html`<a href="/admin?page=${opts.page + 1}" rel="next">Next</a>` : ''}
  </nav>`;
}

export function accountsPage(opts: {
  operator: OperatorFrame;
  flash?: Flash;
  accounts: AccountOverview[];
  page: number;
  pages: number;
  total: number;
  plans: string[];
}): string {
  const rows = opts.accounts.map(
    (a) =>
      html`<tr data-account-id="${a.id}">
        <td>
          <a href="/admin/accounts/${a.id}"><bdi>${a.name}</bdi></a>
        </td>
        <td>${a.plan}</td>
        <td class="num">${usage(a)}</td>
        <td>${contract(a)}</td>
        <td>${status(a)}</td>
      </tr>`,
  );
  return adminPage({
    title: 'Accounts',
    operator: opts.operator,
    flash: opts.flash,
    body: html`<h1>Accounts</h1>
      <div class="card table-wrap">
        <table id="accounts">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Plan</th>
              <th scope="col">Usage this period</th>
              <th scope="col">Contract</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            ${
              rows.length > 0
                ? rows
                : html`<tr>
                    <td colspan="5" class="muted">
                      ${opts.total > 0 ? 'No accounts on this page.' : 'No accounts yet.'}
                    </td>
                  </tr>`
            }
          </tbody>
        </table>
        ${pager(opts)}
      </div>
      <form class="card" method="post" action="/admin/accounts" id="create-account">
        <h2>Create an account</h2>
        ${csrfField(opts.operator.csrf)}
        <label for="name">Name</label>
        <input type="text" id="name" name="name" required maxlength="200" autocomplete="off" />
        <label for="plan">Plan</label>
        ${planSelect(opts.plans)}
        <div class="actions"><button type="submit">Create account</button></div>
      </form>`,
  });
}

export function accountPage(opts: {
  operator: OperatorFrame;
  flash?: Flash;
  account: AccountOverview;
  plans: string[];
}): string {
  const a = opts.account;
  const csrf = csrfField(opts.operator.csrf);
  const base = `/admin/accounts/${a.id}`;
  const contractForm = a.contract
    ? html`<form method="post" action="${base}/contract/end">
        ${csrf}
        <p>A partner contract is in force: ${contract(a)}.</p>
        <div class="actions"><button type="submit" class="secondary">End contract</button></div>
      </form>`
    : html`<form method="post" action="${base}/contract">
        ${csrf}
        <p>No partner contract. A contract grants API access and lifts the plan's limit.</p>
        <label for="ends">Ends on (optional)<span class="hint">A date (UTC); empty: open-ended</span></label>
        <input type="date" id="ends" name="ends" />
        <div class="actions"><button type="submit" class="secondary">Start contract</button></div>
      </form>`;
  const suspension = a.suspendedAt
    ? html`<form method="post" action="${base}/resume">
        ${csrf}
        <p>Suspended since ${date(a.suspendedAt)}: its API keys answer 403 and its users cannot sign in.</p>
        <div class="actions"><button type="submit">Resume</button></div>
      </form>`
    : html`<form method="post" action="${base}/suspend">
        ${csrf}
        <p>Suspending stops its API keys (403) and its users' sign-in at once, until it is resumed.</p>
        <div class="actions"><button type="submit" class="danger">Suspend</button></div>
      </form>`;
  return adminPage({
    title: a.name,
    operator: opts.operator,
    flash: opts.flash,
    body: html`<p><a href="/admin">All accounts</a></p>
      <h1><bdi>${a.name}</bdi> ${status(a)}</h1>
      <div class="card">
        <dl class="facts">
          <dt>Account id</dt>
          <dd><code>${a.id}</code></dd>
          <dt>Plan</dt>
          <dd>${a.plan}</dd>
          <dt>Usage this period</dt>
          <dd>${usage(a)} (resets ${date(a.usage.resetAt)})</dd>
          <dt>Contract</dt>
          <dd>${contract(a)}</dd>
          <dt>API access</dt>
          <dd>${a.apiAccess ? 'yes' : 'no'}</dd>
          <dt>API keys</dt>
          <dd>${a.keys.active} active, ${a.keys.revoked} revoked</dd>
          <dt>Created</dt>
          <dd>${date(a.createdAt)}</dd>
        </dl>
      </div>
      <form class="card" method="post" action="${base}/plan" id="change-plan">
        <h2>Plan</h2>
        ${csrf}
        <label for="plan">Plan</label>
        ${planSelect(opts.plans, a.plan)}
        <div class="actions"><button type="submit">Change plan</button></div>
      </form>
      <section class="card" id="contract">
        <h2>Partner contract</h2>
        ${contractForm}
      </section>
      <section class="card" id="suspension">
        <h2>Suspension</h2>
        ${suspension}
      </section>`,
  });
}
