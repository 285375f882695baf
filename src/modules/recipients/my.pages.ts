import { html, join, when, type Html } from '../../platform/html.js';
import type { CorrectionForm } from './corrections.service.js';
import { RECIPIENT_LINK_TTL_MS } from './recipient-links.js';
import { csrfField, recipientPage, type Notice } from './recipient-page.js';
import type { MyCertificate } from './recipients.service.js';

// The pages of "My certificates": the address form, what it answers, the list, and the correction
// form (also the claim page's, under /claim/{token}/correction).

const STATES: Record<MyCertificate['state'], string> = {
  valid: 'Valid',
  expired: 'Expired',
  revoked: 'Revoked',
  superseded: 'Replaced by a corrected certificate',
};

const day = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 10)}</time>`;

export function askPage(opts: { error?: string; email?: string } = {}): string {
  return recipientPage({
    title: 'My certificates',
    notice: opts.error ? { kind: 'error', text: opts.error } : undefined,
    body: html`<section class="card">
      <p>
        Enter the email address your certificates were sent to. We will email you a link that shows every
        certificate issued to it on this service.
      </p>
      <form method="post" action="/my">
        <label for="email">Email address</label>
        <input
          type="email"
          id="email"
          name="email"
          autocomplete="email"
          required
          maxlength="254"
          value="${opts.email ?? ''}"
        />
        <div class="actions"><button type="submit">Email me a sign-in link</button></div>
      </form>
    </section>`,
  });
}

// The one answer of POST /my, whatever the address: it says nothing about what exists.
export function sentPage(): string {
  const minutes = RECIPIENT_LINK_TTL_MS / 60_000;
  return recipientPage({
    title: 'Check your email',
    body: html`<section class="card" id="sent">
      <p>
        If certificates were issued to that address, we have sent it a sign-in link. The link works once,
        within ${minutes} minutes.
      </p>
      <p class="small muted">Nothing arrived? Check the spam folder, or <a href="/my">ask again</a>.</p>
    </section>`,
  });
}

function certificateCard(c: MyCertificate, csrf: string): Html {
  const usable = c.state === 'valid' || c.state === 'expired';
  const base = `/my/certificates/${c.id}`;
  const post = (action: string, label: string, secondary = true) =>
    html`<form method="post" action="${base}/${action}">
      ${csrfField(csrf)}<button type="submit" ${when(secondary, () => html` class="secondary"`)}>
        ${label}
      </button>
    </form>`;
  return html`<article class="card" data-certificate-id="${c.id}" data-code="${c.uniqueCode}">
    <h2 dir="auto">${c.title}</h2>
    <p class="small">
      <span dir="auto">${c.issuerName}</span> · ${day(c.issuedAt)} ·
      <span class="state ${c.state}">${STATES[c.state]}</span>
    </p>
    <p class="small muted">Issued to <bdi>${c.recipientName}</bdi> · code ${c.uniqueCode}</p>
    <div class="actions">
      <a class="button" href="${base}/pdf" download>Download PDF</a>
      ${when(
        usable,
        () =>
          html`${post('wallet', 'Add to your wallet')}
            <a class="button secondary" href="${c.linkedInUrl}" rel="noopener noreferrer" target="_blank"
              >Add to LinkedIn</a
            >
            ${post('badge', 'Download badge')}
            <a class="button secondary" href="${base}/correction">Request a correction</a>`,
      )}
    </div>
    <p class="small share">Share: <a href="${c.verificationUrl}">${c.verificationUrl}</a></p>
  </article>`;
}

export function listPage(opts: { email: string; csrf: string; certificates: MyCertificate[] }): string {
  const { certificates } = opts;
  return recipientPage({
    title: 'My certificates',
    body: html`<div class="actions small muted">
        <span>Certificates issued to <strong>${opts.email}</strong>, newest first.</span>
        <form method="post" action="/my/sign-out">
          ${csrfField(opts.csrf)}<button type="submit" class="secondary">Sign out</button>
        </form>
      </div>
      ${
        certificates.length === 0
          ? html`<section class="card" id="none"><p>No certificate was issued to this address.</p></section>`
          : html`<div id="certificates">
              ${join(
                certificates.map((c) => certificateCard(c, opts.csrf)),
                '\n',
              )}
            </div>`
      }`,
  });
}

/** The correction form: the current values to change, and a note. `action` is where it posts. */
export function correctionPage(opts: {
  form: CorrectionForm;
  action: string;
  back: string;
  csrf?: string;
  notice?: Notice;
  values?: Record<string, string>;
}): string {
  const { form } = opts;
  const value = (name: string, current: string) => opts.values?.[name] ?? current;
  const fields = form.fields.map(
    (f) =>
      html`<label for="data-${f.key}">${f.label}</label>
        <input
          type="text"
          id="data-${f.key}"
          name="data.${f.key}"
          value="${value(`data.${f.key}`, f.value)}"
          dir="auto"
          maxlength="1000"
        />`,
  );
  const body = form.open
    ? html`<section class="card" id="already-open">
        <p>
          A correction of this certificate was already asked for and is waiting for the issuer: you will get
          an email when they decide.
        </p>
        <p><a href="${opts.back}">Back</a></p>
      </section>`
    : html`<section class="card">
        <p>
          <span dir="auto">${form.title}</span>, issued by <span dir="auto">${form.issuerName}</span> (code
          ${form.uniqueCode}). Change what is wrong and tell the issuer why; they will approve or reject the
          request, and you will get an email either way.
        </p>
        <form method="post" action="${opts.action}">
          ${opts.csrf ? csrfField(opts.csrf) : ''}
          <label for="name">Your name as it should read</label>
          <input
            type="text"
            id="name"
            name="name"
            value="${value('name', form.recipientName)}"
            dir="auto"
            maxlength="200"
            required
          />
          ${fields}
          <label for="note">Note for the issuer</label>
          <textarea id="note" name="note" maxlength="1000" dir="auto">${opts.values?.note ?? ''}</textarea>
          <div class="actions">
            <button type="submit">Request a correction</button
            ><a class="button secondary" href="${opts.back}">Back</a>
          </div>
        </form>
      </section>`;
  return recipientPage({ title: 'Request a correction', notice: opts.notice, body });
}

export function requestedPage(back: string): string {
  return recipientPage({
    title: 'Request sent',
    notice: { kind: 'ok', text: 'Your correction request was sent to the issuer.' },
    body: html`<section class="card" id="requested">
      <p>
        You will get an email when the issuer approves or rejects it. If they approve, a corrected certificate
        replaces this one.
      </p>
      <p><a href="${back}">Back</a></p>
    </section>`,
  });
}
