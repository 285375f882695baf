import { ROLES, ROLE_LABELS, type Role } from '../../modules/shared/roles.js';
import type { InvitationView, MemberView } from '../../modules/users/team.service.js';
import { html, safe, type Html } from '../../platform/html.js';
import { csrfField, dateTime, notice, type Flash } from '../html.js';
import type { userFrame } from '../session.js';
import { confirmForm, tableOrEmpty } from './components.js';
import { settingsPage } from './settings-nav.js';

// Settings > Team: the users with their role, last sign-in and two-factor state; a role is changed
// in place ("Role", "Save"), a user removed after a confirmation; invitations sent, resent, cancelled.

const BASE = '/dashboard/settings/team';

// The roles this user may give: only owners make owners.
function roleOptions(by: Role, selected: Role): Html[] {
  return ROLES.filter((r) => r !== 'owner' || by === 'owner' || selected === 'owner').map(
    (r) => html`<option value="${r}" ${safe(r === selected ? 'selected' : '')}>${ROLE_LABELS[r]}</option>`,
  );
}

function memberRow(m: MemberView, user: ReturnType<typeof userFrame>): Html {
  const fieldId = `role-${m.id}`;
  return html`<tr data-user-id="${m.id}" data-email="${m.email}">
    <td>${m.email}${m.email === user.email ? html` <span class="muted">(you)</span>` : ''}</td>
    <td>
      <form method="post" action="${BASE}/${m.id}/role" class="inline">
        ${csrfField(user.csrf)}
        <label for="${fieldId}" class="sr-only">Role</label>
        <select id="${fieldId}" name="role" aria-label="Role">
          ${roleOptions(user.role, m.role)}
        </select>
        <button type="submit" class="secondary">Save</button>
      </form>
    </td>
    <td class="small">${dateTime(m.lastSignInAt)}</td>
    <td class="small two-factor">${m.twoFactor ? 'On' : 'Off'}</td>
    <td>
      <a class="button secondary" href="${BASE}/${m.id}/remove"
        >Remove<span class="sr-only"> ${m.email}</span></a
      >
    </td>
  </tr>`;
}

function invitationRow(i: InvitationView, csrf: string): Html {
  const action = (what: string, label: string, cls = 'secondary') =>
    html`<form method="post" action="${BASE}/invitations/${i.id}/${what}" class="inline">
      ${csrfField(csrf)}<button type="submit" class="${cls}">
        ${label}<span class="sr-only"> ${i.email}</span>
      </button>
    </form>`;
  return html`<tr data-invitation-id="${i.id}" data-email="${i.email}">
    <td>${i.email}</td>
    <td>${ROLE_LABELS[i.role]}</td>
    <td class="small">${i.invitedBy ?? ''}</td>
    <td class="small">${dateTime(i.expiresAt)}</td>
    <td>${action('resend', 'Resend')} ${action('cancel', 'Cancel', 'danger')}</td>
  </tr>`;
}

export function teamPage(opts: {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  members: MemberView[];
  invitations: InvitationView[];
  typed?: { email: string; role: string };
}): string {
  const { user } = opts;
  const inviteRole = (opts.typed?.role as Role | undefined) ?? 'issuer';
  return settingsPage(
    { title: 'team', user, current: 'team' },
    html`<h1>Settings: team</h1>
      ${notice(opts.flash)}
      ${tableOrEmpty(opts.members, 'No users.', {
        id: 'team-members',
        columns: ['User', 'Role', 'Last sign-in', 'Two-factor', ''],
        row: (m) => memberRow(m, user),
      })}
      <h2>Invite a colleague</h2>
      <form class="card" method="post" action="${BASE}/invitations" id="invite-form">
        ${csrfField(user.csrf)}
        <label for="invite-email">Email address</label>
        <input type="email" id="invite-email" name="email" required value="${opts.typed?.email ?? ''}" />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          ${roleOptions(user.role, inviteRole)}
        </select>
        <p class="hint">
          They receive a link that works once, for 7 days, to choose their password. Issuers issue, send,
          revoke and reissue; designers edit templates; viewers only read; admins do everything but change
          owners.
        </p>
        <div class="actions"><button type="submit">Invite</button></div>
      </form>
      <h2>Pending invitations</h2>
      ${tableOrEmpty(opts.invitations, 'No pending invitations.', {
        id: 'team-invitations',
        columns: ['Email', 'Role', 'Invited by', 'Link valid until', ''],
        row: (i) => invitationRow(i, user.csrf),
      })}`,
  );
}

export function confirmRemovePage(opts: { user: ReturnType<typeof userFrame>; member: MemberView }): string {
  const { user, member } = opts;
  return settingsPage(
    { title: 'remove a user', user, current: 'team' },
    html`<h1>Remove ${member.email}?</h1>
      <div class="card">
        <p>
          ${member.email} (${ROLE_LABELS[member.role]}) can no longer sign in, and every session of theirs
          ends at once. API keys they made stay the account's.
        </p>
        ${confirmForm({ action: `${BASE}/${member.id}/remove`, csrf: user.csrf, button: 'Remove', cancel: BASE })}
      </div>`,
  );
}
