import type { PdfCertificateView } from '../../modules/proof/signing-keys.service.js';
import type { CertificateView } from '../../modules/certificates/certificate.view.js';
import type { EmailSendView } from '../../modules/emails/emails.schemas.js';
import { csrfField, dateTime, notice, page, typed, type Flash } from '../html.js';
import { html, when, type Html } from '../../platform/html.js';
import type { userFrame } from '../session.js';
import { badge, emptyState, table } from './components.js';
import { REASON_MAX_LENGTH } from '../../platform/limits.js';
import { can } from '../../modules/shared/roles.js';
import type { ClaimRecord } from '../../modules/wallet/claims.repository.js';
import { walletClaimsSection } from './wallet-claims.js';

// One certificate's page: its details and proofs, its send history, and the forms to send,
// correct and reissue, and revoke it.

type User = ReturnType<typeof userFrame>;
type TemplateField = { key: string; label: string; required: boolean; type?: 'text' | 'list' };

function historyTable(history: EmailSendView[], total: number): Html {
  const row = (e: EmailSendView) =>
    html`<tr>
      <td>${e.recipientEmail}${e.lastError ? html`<div class="small muted">${e.lastError}</div>` : ''}</td>
      <td>${badge(e.status)}</td>
      <td class="small">${dateTime(e.createdAt)}</td>
      <td class="small opt">${e.sentAt ? dateTime(e.sentAt) : ''}</td>
      <td class="num opt">${e.attempts}</td>
    </tr>`;
  if (history.length === 0) return emptyState('Not sent yet.');
  return html`${table({
    id: 'send-history',
    columns: ['To', 'Status', 'Queued', { label: 'Sent', opt: true }, { label: 'Attempts', opt: true }],
    rows: history.map(row),
  })}
  ${total > history.length ? html`<p class="small muted">The ${history.length} newest of ${total} sends.</p>` : ''}`;
}

// The corrected recipient, prefilled with the certificate's values (the same fields as issuing one).
function reissueFields(c: CertificateView, fields: TemplateField[], csrf: string): Html {
  const data = c.data as Record<string, unknown>;
  const textFields = fields.filter((f) => f.type !== 'list'); // a list is kept as it is
  return html`<form method="post" action="/dashboard/certificates/${c.id}/reissue" id="reissue-form">
    ${csrfField(csrf)}
    <p class="hint">
      A new certificate, with a new code and PDF, replaces this one, which is revoked with the public reason
      "Superseded by &lt;new code&gt;" and links the new one. No quota is used.
    </p>
    <label for="reissue-name">Recipient name</label>
    <input type="text" id="reissue-name" name="name" value="${c.recipientName}" required dir="auto" />
    <label for="reissue-email">Recipient email</label>
    <input type="email" id="reissue-email" name="email" value="${c.recipientEmail}" required />
    ${textFields.map(
      (f) =>
        html`<label for="reissue-data-${f.key}"
            >${f.label}${f.required ? '' : html` <span class="hint">Optional</span>`}</label
          >
          <input
            type="text"
            id="reissue-data-${f.key}"
            name="data.${f.key}"
            value="${data[f.key] === undefined ? '' : String(data[f.key])}"
            ${f.required ? html` required` : ''}
            dir="auto"
          />`,
    )}
    <div class="actions"><button type="submit">Correct and reissue</button></div>
  </form>`;
}

export interface CertificatePageOptions {
  user: User;
  flash?: Flash;
  certificate: CertificateView;
  templateName?: string;
  /** The version of the template's design it was issued from (null: not recorded). */
  templateVersion?: number | null;
  history: EmailSendView[];
  historyTotal: number;
  emailDelivery: boolean;
  signed: boolean;
  /** The certificate that signed the frozen PDF; none for PDFs frozen before signing. */
  pdfSigner: PdfCertificateView | undefined;
  /** The fields of the certificate's template (current version); none when it is archived. */
  templateFields?: TemplateField[];
  /** Its claims into wallets, newest first (issue 31). */
  claims?: ClaimRecord[];
}

function sendForm(c: CertificateView, opts: CertificatePageOptions): Html {
  return !opts.emailDelivery
    ? html`<p class="muted">Email delivery is not included in this account's plan.</p>`
    : c.status !== 'Issued'
      ? html`<p class="muted">A ${c.status} certificate cannot be emailed.</p>`
      : html`<form method="post" action="/dashboard/certificates/${c.id}/send">
          ${csrfField(opts.user.csrf)}
          <label for="recipientEmail"
            >Send to another address
            <span class="hint">Optional: leave empty to send to ${c.recipientEmail}.</span></label
          >
          <input type="email" id="recipientEmail" name="recipientEmail" autocomplete="off" />
          <div class="actions"><button type="submit">Send by email</button></div>
        </form>`;
}

function revokeForm(c: CertificateView, opts: CertificatePageOptions): Html {
  return c.status === 'Issued'
    ? html`<form method="post" action="/dashboard/certificates/${c.id}/revoke">
        ${csrfField(opts.user.csrf)}
        <label for="reason"
          >Reason
          <span class="hint"
            >Optional, at most ${REASON_MAX_LENGTH} characters. <strong>Public:</strong> the verification page
            shows it to anyone with the code.</span
          ></label
        >
        <textarea id="reason" name="reason" maxlength="${REASON_MAX_LENGTH}" dir="auto"></textarea>
        <label class="check"
          ><input type="checkbox" name="confirm" value="yes" required /> I understand that revocation is
          permanent.</label
        >
        <div class="actions"><button type="submit" class="danger">Revoke the certificate</button></div>
      </form>`
    : html`<p class="muted">
        ${c.status === 'Revoked' ? 'This certificate is revoked; revocation is permanent.' : 'Only an Issued certificate can be revoked.'}
      </p>`;
}

function reissueForm(c: CertificateView, opts: CertificatePageOptions): Html {
  return c.status !== 'Issued'
    ? html`<p class="muted">Only an Issued certificate can be corrected and reissued.</p>`
    : !opts.templateFields
      ? html`<p class="muted">Its template is archived: this certificate cannot be reissued from it.</p>`
      : reissueFields(c, opts.templateFields, opts.user.csrf);
}

// The facts of the certificate: who, from which template, its dates, code, proofs and counters.
function details(c: CertificateView, opts: CertificatePageOptions): Html {
  return html`<dl class="facts">
    <dt>Status</dt>
    <dd id="status">${badge(c.status)}</dd>
    <dt>Recipient</dt>
    <dd>${typed(c.recipientName)} · ${c.recipientEmail}</dd>
    <dt>Template</dt>
    <dd>
      ${opts.templateName ? typed(opts.templateName) : html`<span class="muted">archived</span>`}
      ${
        opts.templateVersion
          ? html` ·
              <a href="/dashboard/templates/${c.templateId}/history"
                >design version ${opts.templateVersion}</a
              >`
          : ''
      }
    </dd>
    ${Object.entries(c.data).map(([k, v]) => {
      // The template's label; a key it does not show (or an archived template's) as it is.
      const label = opts.templateFields?.find((f) => f.key === k)?.label;
      return html`<dt>${label ? typed(label) : html`<code>${k}</code>`}</dt>
        <dd dir="auto">
          ${Array.isArray(v) ? `${v.length} ${v.length === 1 ? 'item' : 'items'}` : String(v)}
        </dd>`;
    })}
    <dt>Issued</dt>
    <dd>${dateTime(c.issuedAt)}</dd>
    ${
      c.expiresAt
        ? html`<dt>Expires</dt>
            <dd id="expires-at">${dateTime(c.expiresAt)}</dd>`
        : ''
    }
    ${
      c.revokedAt
        ? html`<dt>Revoked</dt>
            <dd>
              ${dateTime(c.revokedAt)}${c.revocationReason ? html` · <span dir="auto">${c.revocationReason}</span>` : ''}
            </dd>`
        : ''
    }
    <dt>Code</dt>
    <dd class="mono">${c.uniqueCode}</dd>
    <dt>Verification</dt>
    <dd>
      <a id="verification-url" href="${c.verificationUrl}" target="_blank" rel="noopener"
        >${c.verificationUrl}</a
      >
    </dd>
    <dt>Digital signature</dt>
    <dd id="signature" data-signed="${String(opts.signed)}">
      ${
        opts.signed
          ? html`Signed: an Open Badges 3.0 credential that verifies without this service.
              <a id="credential-download" href="/dashboard/certificates/${c.id}/credential" download
                >Download the credential</a
              >`
          : html`Not signed: issued before certificates were signed (<code>certsvc credentials backfill</code>
              signs it).`
      }
    </dd>
    <dt>Signed PDF</dt>
    <dd id="pdf-signature" data-signed="${String(opts.pdfSigner !== undefined)}">
      ${
        opts.pdfSigner
          ? html`Signed by <bdi>${opts.pdfSigner.subject}</bdi> (${
                opts.pdfSigner.source === 'imported' ? 'imported certificate' : 'self-signed certificate'
              },
              SHA-256 <code class="mono small">${opts.pdfSigner.fingerprintSha256}</code>), with the
              credential attached as <code>credential.json</code>: PDF readers show the signature.`
          : html`Not signed: the PDF was frozen before PDFs were signed, and stays as it was.`
      }
    </dd>
    <dt>Downloads</dt>
    <dd id="download-count">${c.downloadCount}</dd>
    <dt>Emails</dt>
    <dd id="email-count">${c.emailCount}</dd>
    <dt>Verifications</dt>
    <dd id="verification-count">${c.verificationCount}</dd>
  </dl>`;
}

export function certificatePage(opts: CertificatePageOptions): string {
  const c = opts.certificate;
  const pdf = `/dashboard/certificates/${c.id}/pdf`;
  // A role that may not issue sees the certificate, not the forms that change it.
  const mayIssue = can(opts.user.role, 'issue');
  return page({
    title: `Certificate for ${c.recipientName}`,
    section: 'certificates',
    user: opts.user,
    body: html`<p class="small"><a href="/dashboard/certificates">← All certificates</a></p>
      <h1>Certificate for ${typed(c.recipientName)}</h1>
      ${notice(opts.flash)}
      <section class="card" aria-labelledby="facts-title">
        <h2 id="facts-title">Details</h2>
        ${details(c, opts)}
        <div class="actions">
          <a class="button" href="${pdf}" target="_blank" rel="noopener">View PDF</a
          ><a class="button secondary" href="${pdf}?download=1" download>Download PDF</a>
        </div>
      </section>
      <section class="card" aria-labelledby="send-title">
        <h2 id="send-title">${mayIssue ? 'Send by email' : 'Emails sent'}</h2>
        ${when(mayIssue, () => sendForm(c, opts))}
        <h3 class="small muted">Send history</h3>
        ${historyTable(opts.history, opts.historyTotal)}
      </section>
      ${walletClaimsSection(opts.claims ?? [])}
      ${when(
        mayIssue,
        () =>
          html`<section class="card" aria-labelledby="reissue-title">
              <h2 id="reissue-title">Correct and reissue</h2>
              ${reissueForm(c, opts)}
            </section>
            <section class="card" aria-labelledby="revoke-title">
              <h2 id="revoke-title">Revoke</h2>
              ${revokeForm(c, opts)}
            </section>`,
      )}`,
  });
}
