import type { ApiKeyView } from '../../modules/api-keys/api-keys.service.js';
import { DEFAULT_SCOPES, SCOPES } from '../../modules/shared/key-format.js';
import { csrfField, dateTime, page, typed, type Flash } from '../html.js';
import { html, when } from '../../platform/html.js';
import type { userFrame } from '../session.js';
import { confirmForm, tableOrEmpty, titledPage } from './components.js';

const SCOPE_HELP: Record<string, string> = {
  'templates:read': 'list and read templates',
  'certificates:read': 'list, read and download certificates, send history, usage',
  'certificates:write': 'issue, send and revoke certificates',
  'audit:read': 'read the audit log (GET /api/v1/audit-events)',
};

function newKeyBox(created: { key: string; name: string | null }) {
  return html`<section class="newkey" aria-labelledby="new-key-title" data-once>
    <h2 id="new-key-title">Your new API key${when(created.name, () => html` “${typed(created.name)}”`)}</h2>
    <p>
      <strong>Copy it now: it is shown only this once.</strong> certsvc keeps only a fingerprint of it and
      cannot show it again. If you lose it, create a new key and revoke this one.
    </p>
    <code id="new-api-key" data-testid="new-api-key">${created.key}</code>
    <div class="actions">
      <button type="button" class="secondary" data-copy="new-api-key" data-status="copy-status" hidden>
        Copy key
      </button>
      <span id="copy-status" role="status" class="small"></span>
    </div>
  </section>`;
}

function keyRow(k: ApiKeyView) {
  return html`<tr data-key-id="${k.id}">
    <td class="name">${k.name ? typed(k.name, 'span') : html`<span class="muted">(no name)</span>`}</td>
    <td><code class="key-prefix">${k.prefix}</code></td>
    <td class="opt small">${k.scopes.join(', ')}</td>
    <td class="small">
      ${dateTime(k.createdAt)}${k.createdBy ? html`<br /><span class="made-by">Made by ${k.createdBy}</span>` : ''}
    </td>
    <td class="small">${dateTime(k.lastUsedAt)}</td>
    <td>
      ${
        k.revokedAt
          ? html`<span class="badge revoked">Revoked</span>`
          : html`<a class="button secondary" href="/dashboard/settings/api-keys/${k.id}/revoke"
              >Revoke<span class="sr-only"> ${k.name ?? k.prefix}</span></a
            >`
      }
    </td>
  </tr>`;
}

export function keysPage(opts: {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  keys: ApiKeyView[];
  created?: { key: string; name: string | null };
}): string {
  const scopes = SCOPES.map(
    (s) =>
      html`<label class="check"
        ><input type="checkbox" name="scopes" value="${s}" ${DEFAULT_SCOPES.includes(s) ? 'checked' : ''} />
        <span><code>${s}</code> <span class="hint">${SCOPE_HELP[s] ?? ''}</span></span></label
      >`,
  );
  const list = tableOrEmpty(opts.keys, 'No API keys yet.', {
    id: 'api-keys',
    columns: [
      'Name',
      'Key',
      { label: 'Scopes', opt: true },
      'Created',
      'Last used',
      { label: html`<span class="sr-only">Actions</span>` },
    ],
    row: keyRow,
  });
  return titledPage({
    title: 'API keys',
    section: 'settings',
    settings: 'api-keys',
    user: opts.user,
    flash: opts.flash,
    heading: html`Settings: API keys`,
    body: html` ${when(opts.created, () => newKeyBox(opts.created!))}
      <section class="card" aria-labelledby="create-title">
        <h2 id="create-title">Create a key</h2>
        <form method="post" action="/dashboard/settings/api-keys">
          ${csrfField(opts.user.csrf)}
          <label for="key-name"
            >Name <span class="hint">Optional: where the key is used, e.g. “LMS production”.</span></label
          >
          <input type="text" id="key-name" name="name" maxlength="100" autocomplete="off" />
          <fieldset>
            <legend>Scopes</legend>
            ${scopes}
          </fieldset>
          <div class="actions"><button type="submit">Create key</button></div>
        </form>
      </section>
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys of this account</h2>
        <p class="small muted">
          To rotate a key, create a new key with the same scopes, deploy it, then revoke the old one.
        </p>
        ${list}
      </section>`,
  });
}

export function confirmRevokeKeyPage(opts: { user: ReturnType<typeof userFrame>; key: ApiKeyView }): string {
  const k = opts.key;
  return page({
    title: 'Revoke API key',
    section: 'settings',
    user: opts.user,
    body: html`<h1>Revoke this API key?</h1>
      <div class="card">
        <p>
          The key ${k.name ? html`“${typed(k.name)}” ` : ''}<code>${k.prefix}…</code> stops working at once:
          the very next API request made with it is refused with 401. This cannot be undone.
        </p>
        ${confirmForm({
          action: `/dashboard/settings/api-keys/${k.id}/revoke`,
          csrf: opts.user.csrf,
          button: 'Revoke the key',
          cancel: '/dashboard/settings/api-keys',
        })}
      </div>`,
  });
}
