import { ZIP_MAX } from '../../modules/certificates/certificates.service.js';
import type { CertificateView } from '../../modules/certificates/certificate.view.js';
import { dateTime, typed, type Flash } from '../html.js';
import { html, when } from '../../platform/html.js';
import type { userFrame } from '../session.js';
import { badge, emptyState, pager, select, table, titledPage } from './components.js';
import { can } from '../../modules/shared/roles.js';

// The list of the account's certificates, its search and its pages.

export const PER_PAGE = 25;

type User = ReturnType<typeof userFrame>;

interface List {
  data: CertificateView[];
  pagination: { page: number; perPage: number; total: number; totalPages: number };
}

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function certificatesPage(opts: {
  user: User;
  flash?: Flash;
  list: List;
  status?: string;
  search: string;
  /** Open correction requests (Certificates > Corrections). */
  corrections?: number;
}): string {
  const { data, pagination: p } = opts.list;
  const zipQuery = new URLSearchParams({
    ...(opts.status ? { status: opts.status } : {}),
    ...(opts.search ? { q: opts.search } : {}),
  }).toString();
  const zipLink = `/dashboard/certificates/pdfs.zip${zipQuery ? `?${zipQuery}` : ''}`;
  const options = ['', 'Issued', 'Revoked', 'Draft'].map((s) => ({
    value: s,
    label: s || 'All',
    selected: opts.status === s || (!opts.status && !s),
  }));
  const rows = data.map(
    (c) =>
      html`<tr data-certificate-id="${c.id}">
        <td>
          <a class="name" href="/dashboard/certificates/${c.id}">${typed(c.recipientName)}</a>
          <div class="small muted">${c.recipientEmail}</div>
        </td>
        <td>${badge(c.status)}</td>
        <td class="small opt">${dateTime(c.issuedAt)}</td>
        <td class="small opt mono">${c.uniqueCode}</td>
      </tr>`,
  );
  const link = (page: number) =>
    `/dashboard/certificates${query({ status: opts.status, q: opts.search, page })}`;
  const list =
    data.length === 0
      ? emptyState(
          opts.search || opts.status ? 'No certificates match.' : 'No certificates yet.',
          'no-results',
        )
      : table({
          id: 'certificates',
          columns: ['Recipient', 'Status', { label: 'Issued', opt: true }, { label: 'Code', opt: true }],
          rows,
        });
  return titledPage({
    title: 'Certificates',
    section: 'certificates',
    user: opts.user,
    flash: opts.flash,
    body: html` ${when(
        can(opts.user.role, 'issue'),
        () =>
          html`<div class="actions">
            <a class="button" href="/dashboard/certificates/new">Issue one</a
            ><a class="button secondary" href="/dashboard/certificates/upload">Issue many from a CSV file</a>
          </div>`,
      )}
      <p id="corrections-link">
        <a href="/dashboard/certificates/corrections"
          >Correction requests${opts.corrections ? ` (${opts.corrections} open)` : ''}</a
        >
      </p>
      <section class="card" aria-label="Certificates">
        <form class="filters" method="get" action="/dashboard/certificates" role="search">
          <div>
            <label for="q">Search</label
            ><input
              type="search"
              id="q"
              name="q"
              value="${opts.search}"
              placeholder="Name, email address or certificate code"
            />
          </div>
          ${select('status', 'Status', options)}
          <button type="submit">Show</button>
        </form>
        <p class="small muted" id="total">
          ${p.total.toLocaleString('en-US')} certificate${p.total === 1 ? '' : 's'}
          ${
            p.total > 0
              ? html`·
                  <a id="download-zip" href="${zipLink}" download
                    >${
                      p.total > ZIP_MAX
                        ? `Download the newest ${ZIP_MAX.toLocaleString('en-US')} PDFs (ZIP)`
                        : 'Download PDFs (ZIP)'
                    }</a
                  >`
              : ''
          }
        </p>
        ${list} ${pager(p, link)}
      </section>`,
  });
}
