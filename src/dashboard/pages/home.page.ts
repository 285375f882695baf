import type { PdfCertificateView, SigningKeyView } from '../../modules/proof/signing-keys.service.js';
import type { UsageView } from '../../modules/usage/usage.schemas.js';
import type { PlanOffer } from '../../modules/usage/usage.service.js';
import { date, type Flash } from '../html.js';
import { html, when, type Html } from '../../platform/html.js';
import type { userFrame } from '../session.js';
import { titledPage } from './components.js';
import { quotaHelp } from './quota.js';
import { can } from '../../modules/shared/roles.js';

function number(n: number | null): string {
  return n === null ? 'No limit' : n.toLocaleString('en-US');
}

// One figure of the usage grid.
function stat(label: string, id: string, value: string | Html, className?: string): Html {
  return html`<div class="stat">
    <dt>${label}</dt>
    <dd id="${id}" ${className ? html`class="${className}"` : ''}>${value}</dd>
  </div>`;
}

export function homePage(opts: {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  usage: UsageView;
  plans: PlanOffer[];
  issuer: { did: string; keys: SigningKeyView[]; pdfCertificates: PdfCertificateView[] };
  templateCount: number;
}): string {
  const { certificates: c, tier } = opts.usage;
  const share = c.limit ? Math.min(100, Math.round((c.used / c.limit) * 100)) : 0;
  const meter =
    c.limit === null
      ? quotaHelp(opts.usage, opts.plans)
      : html`<div class="meter" role="img" aria-label="${share}% of the monthly quota used">
            <span class="w${Math.round(share / 5) * 5}"></span>
          </div>
          ${quotaHelp(opts.usage, opts.plans)}`;
  return titledPage({
    title: 'Home',
    section: 'home',
    user: opts.user,
    flash: opts.flash,
    heading: html`Welcome, <bdi>${opts.user.accountName}</bdi>`,
    body: html` <section class="card" aria-labelledby="usage-title" id="usage">
        <h2 id="usage-title">Usage this month</h2>
        <dl class="grid">
          ${stat('Plan', 'usage-plan', tier)} ${stat('Used', 'usage-used', number(c.used))}
          ${stat('Limit', 'usage-limit', number(c.limit))}
          ${stat('Remaining', 'usage-remaining', number(c.remaining))}
          ${stat('Resets on', 'usage-reset', date(c.resetAt), 'date')}
        </dl>
        ${meter}
      </section>
      <section class="card" aria-labelledby="issuer-title" id="issuer">
        <h2 id="issuer-title">Issuer identity</h2>
        <p>
          Every certificate is also an Open Badges 3.0 credential signed by this account. Verifiers find its
          keys through its DID:
        </p>
        <p><code id="issuer-did">${opts.issuer.did}</code></p>
        ${
          opts.issuer.keys.length === 0
            ? html`<p class="muted">No signing key yet: one is made at the first issue.</p>`
            : html`<ul id="signing-keys">
                ${opts.issuer.keys.map(
                  (k) =>
                    html`<li>
                      <code class="mono">${k.publicKeyMultibase}</code>
                      <span class="small muted"
                        >${k.current ? 'current' : 'retired'}, since ${date(k.createdAt)}</span
                      >
                    </li>`,
                )}
              </ul>`
        }
        <p>Its PDFs are signed (PAdES) with this certificate, the credential attached to each:</p>
        ${
          opts.issuer.pdfCertificates.length === 0
            ? html`<p class="muted">
                No PDF signing certificate yet: a self-signed one is made at the first issue.
              </p>`
            : html`<ul id="pdf-certificates">
                ${opts.issuer.pdfCertificates.map(
                  (c) =>
                    html`<li>
                      <bdi>${c.subject}</bdi>
                      <span class="small muted"
                        >${c.source === 'imported' ? `imported, issued by ${c.issuer}` : 'self-signed'},
                        ${c.current ? 'current' : 'retired'}, since ${date(c.createdAt)}</span
                      ><br /><code class="mono small">SHA-256 ${c.fingerprintSha256}</code>
                    </li>`,
                )}
              </ul>`
        }
      </section>
      <section class="card">
        <h2>Get started</h2>
        <div class="actions">
          ${when(
            can(opts.user.role, 'issue'),
            () =>
              html`<a class="button" href="/dashboard/certificates/new">Issue a certificate</a>
                <a class="button secondary" href="/dashboard/certificates/upload"
                  >Issue many from a CSV file</a
                >`,
          )}
          <a class="button secondary" href="/dashboard/templates">Templates (${opts.templateCount})</a>
          ${when(
            can(opts.user.role, 'keys'),
            () => html`<a class="button secondary" href="/dashboard/settings/api-keys">API keys</a>`,
          )}
          ${when(
            can(opts.user.role, 'organisation'),
            () => html`<a class="button secondary" href="/dashboard/settings/sharing">Sharing settings</a>`,
          )}
        </div>
      </section>`,
  });
}
