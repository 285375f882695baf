import type { CorrectionRow } from '../../modules/recipients/corrections.repository.js';
import { can } from '../../modules/shared/roles.js';
import { html, join, when, type Html } from '../../platform/html.js';
import { csrfField, dateTime, typed, type Flash } from '../html.js';
import type { userFrame } from '../session.js';
import { badge, emptyState, titledPage } from './components.js';

// Certificates > Corrections: the recipients' correction requests. Each open one shows what is
// asked (the name and values, old and new) and the note, with "Approve" (a reissue with the
// requested values) and "Reject" (with a reason the recipient is told).

type User = ReturnType<typeof userFrame>;

function changes(r: CorrectionRow): Html {
  const lines: Html[] = [];
  if (r.requested_name !== null) {
    lines.push(
      html`<li>Name: <del>${typed(r.recipient_name)}</del> → <ins>${typed(r.requested_name)}</ins></li>`,
    );
  }
  for (const [key, value] of Object.entries(r.requested_data)) {
    const old = r.data[key] === undefined ? '' : String(r.data[key]);
    lines.push(html`<li>${key}: <del>${typed(old)}</del> → <ins>${typed(value)}</ins></li>`);
  }
  return html`<ul class="changes">
    ${lines}
  </ul>`;
}

function openRequest(r: CorrectionRow, user: User): Html {
  const base = `/dashboard/certificates/corrections/${r.id}`;
  const decide = can(user.role, 'issue');
  return html`<article class="card" data-correction-id="${r.id}" aria-label="Request for ${r.unique_code}">
    <h2>
      <a href="/dashboard/certificates/${r.certificate_id}">${typed(r.recipient_name)}</a> · ${typed(r.title)}
    </h2>
    <p class="small muted">
      Code ${r.unique_code} · asked ${dateTime(r.created_at.toISOString())} from
      ${r.via === 'my' ? 'My certificates' : 'the wallet page'} · certificate ${badge(r.certificate_status)}
    </p>
    ${changes(r)}
    ${when(r.note !== '', () => html`<p class="note"><strong>Note:</strong> ${typed(r.note, 'span')}</p>`)}
    ${when(
      decide,
      () =>
        html`<div class="actions">
          <form method="post" action="${base}/approve">
            ${csrfField(user.csrf)}<button type="submit">Approve</button>
          </form>
          <form method="post" action="${base}/reject">
            ${csrfField(user.csrf)}
            <label for="reason-${r.id}">Reason for rejecting</label>
            <input type="text" id="reason-${r.id}" name="reason" maxlength="500" required />
            <button type="submit" class="danger">Reject</button>
          </form>
        </div>`,
    )}
  </article>`;
}

function decidedRow(r: CorrectionRow): Html {
  const outcome =
    r.status === 'approved' && r.new_certificate_id
      ? html`approved:
          <a href="/dashboard/certificates/${r.new_certificate_id}">the corrected certificate</a>`
      : html`rejected: ${typed(r.reason, 'span')}`;
  return html`<li data-correction-id="${r.id}">
    ${typed(r.recipient_name)} (${r.unique_code}) · ${outcome} · by ${r.decided_by ?? ''}
    ${dateTime(r.decided_at?.toISOString())}
  </li>`;
}

export function correctionsPage(opts: {
  user: User;
  flash?: Flash;
  open: CorrectionRow[];
  decided: CorrectionRow[];
}): string {
  return titledPage({
    title: 'Correction requests',
    section: 'certificates',
    user: opts.user,
    flash: opts.flash,
    body: html`<p><a href="/dashboard/certificates">← Certificates</a></p>
      <section aria-label="Open requests" id="open-corrections">
        ${
          opts.open.length === 0
            ? emptyState('No correction requests are waiting.', 'no-corrections')
            : join(opts.open.map((r) => openRequest(r, opts.user)))
        }
      </section>
      ${when(
        opts.decided.length > 0,
        () =>
          html`<section class="card" aria-label="Decided requests" id="decided-corrections">
            <h2>Decided lately</h2>
            <ul>
              ${opts.decided.map(decidedRow)}
            </ul>
          </section>`,
      )}`,
  });
}
