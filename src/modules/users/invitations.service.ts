import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { html } from '../../platform/html.js';
import { uuidv7 } from '../../platform/ids.js';
import type { Doer, Origin } from '../../platform/principal.js';
import { recordAudit } from '../audit/audit-log.js';
import type { Role } from '../shared/roles.js';
import { LinkGoneError, linkTokenHash, newLinkToken } from './link-token.js';
import { hashPassword } from './password.js';
import * as repo from './team.repository.js';
import { assertMayGiveRole } from './team-rules.js';
import { findUserByEmail, insertUser, stampSignIn } from './users.repository.js';
import { assertNewPassword, userEmail, userRole } from './users.service.js';

/** Who changes the team: the doer the audit trail names, and the role their rights come from. */
export interface TeamActor extends Doer {
  role: Role;
}

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  invitedBy: string | null;
  expiresAt: string;
  createdAt: string;
}

/** What sends the invitation (services.accountMail); throws when the mail server refuses it. */
export interface TeamMail {
  send(input: { to: string; subject: string; text: string; html: string }): Promise<void>;
}

// Invitations to a team (issue 29): a single-use link valid 7 days under /dashboard/invitations/,
// mailed at once; resent (a new link, the old one stops working), cancelled, accepted once.

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

function invitationView(row: repo.InvitationRow): InvitationView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invitedBy: row.invited_by_label,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
  };
}

export function listPending(db: Db, accountId: string, now: Date): Promise<InvitationView[]> {
  return repo.listPendingInvitations(db, accountId, now).then((rows) => rows.map(invitationView));
}

export function createInvitations(deps: {
  db: Db;
  now: () => Date;
  mail: TeamMail;
  publicBaseUrl: string;
  accountName: (accountId: string) => Promise<string>;
}) {
  const { db, accountName } = deps;

  async function sendInvitation(to: string, accountName: string, role: Role, token: string) {
    const url = `${deps.publicBaseUrl}/dashboard/invitations/${token}`;
    const text = `You are invited to join ${accountName} on certsvc as ${role}.\n\nOpen this link within 7 days to choose your password (it works once):\n${url}\n`;
    const body = html`<p>You are invited to join <strong>${accountName}</strong> on certsvc as ${role}.</p>
      <p>
        <a href="${url}">Accept the invitation</a> within 7 days to choose your password (the link works
        once).
      </p>
      <p>${url}</p>`;
    await deps.mail.send({ to, subject: `Join ${accountName} on certsvc`, text, html: String(body) });
  }

  return {
    // A single-use link valid 7 days, mailed at once; the invitation exists only if the mail went.
    async invite(accountId: string, by: TeamActor, input: { email: string; role: string }) {
      const email = userEmail(input.email);
      const role = userRole(input.role);
      assertMayGiveRole(by.role, role);
      const name = await accountName(accountId);
      if (await findUserByEmail(db, email)) {
        throw new ConflictError(`${email} already has a certsvc user: they cannot be invited again.`);
      }
      const now = deps.now();
      const { token, hash } = newLinkToken();
      const row = await db.transaction(async (tx) => {
        // The team's changes take turns (its users locked), so two invitations to one address cannot cross.
        await repo.lockMembers(tx, accountId);
        const pending = await repo.listPendingInvitations(tx, accountId, now);
        if (pending.some((i) => i.email === email)) {
          throw new ConflictError(`${email} is already invited: resend or cancel that invitation.`);
        }
        const invitation = await repo.insertInvitation(tx, {
          id: uuidv7(),
          accountId,
          email,
          role,
          tokenHash: hash,
          byUserId: by.actor.type === 'user' ? by.actor.id : null,
          byLabel: by.actor.type === 'user' ? by.actor.label : by.actor.type,
          expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        });
        await recordAudit(
          tx,
          accountId,
          by,
          [
            {
              action: 'user.invited',
              target: { type: 'invitation', id: invitation.id },
              changes: { email, role },
            },
          ],
          now,
        );
        await sendInvitation(email, name, role, token);
        return invitation;
      });
      return invitationView(row);
    },

    // A new link and a new week; the link sent before stops working.
    async resend(accountId: string, by: TeamActor, invitationId: string) {
      const name = await accountName(accountId);
      const now = deps.now();
      const { token, hash } = newLinkToken();
      return db.transaction(async (tx) => {
        const invitation = await repo.lockPendingInvitation(tx, accountId, invitationId, now);
        if (!invitation) throw new NotFoundError('Invitation');
        assertMayGiveRole(by.role, invitation.role);
        await repo.renewInvitation(tx, invitation.id, hash, new Date(now.getTime() + INVITATION_TTL_MS));
        await recordAudit(
          tx,
          accountId,
          by,
          [
            {
              action: 'user.invited',
              target: { type: 'invitation', id: invitation.id },
              changes: { email: invitation.email, role: invitation.role, resent: true },
            },
          ],
          now,
        );
        await sendInvitation(invitation.email, name, invitation.role, token);
        return invitationView(invitation);
      });
    },

    async cancel(accountId: string, by: TeamActor, invitationId: string) {
      const now = deps.now();
      return db.transaction(async (tx) => {
        const invitation = await repo.lockPendingInvitation(tx, accountId, invitationId, now);
        if (!invitation) throw new NotFoundError('Invitation');
        assertMayGiveRole(by.role, invitation.role);
        await repo.closeInvitation(tx, invitation.id, 'cancelled_at', now);
        return invitationView(invitation);
      });
    },

    // What the invitation page shows; a used, cancelled or expired link is gone, an unknown one not found.
    async openInvitation(token: string) {
      const row = await repo.findInvitationByToken(db, linkTokenHash(token));
      usable(row, deps.now());
      return { email: row!.email, role: row!.role, accountName: await accountName(row!.account_id) };
    },

    // The invitee chooses a password and becomes a user of the account with the invited role.
    async accept(token: string, password: string, origin?: Origin) {
      assertNewPassword(password);
      const passwordHash = await hashPassword(password);
      return db.transaction(async (tx) => {
        const now = deps.now();
        const invitation = await repo.lockInvitationByToken(tx, linkTokenHash(token));
        usable(invitation, now);
        const { account_id: accountId, email, role } = invitation!;
        const user = await insertUser(tx, { id: uuidv7(), accountId, email, passwordHash, role });
        if (!user) throw new ConflictError(`${email} already has a certsvc user: sign in instead.`);
        await repo.closeInvitation(tx, invitation!.id, 'accepted_at', now);
        await stampSignIn(tx, user.id, now);
        const doer: Doer = { actor: { type: 'user', id: user.id, label: email }, origin };
        await recordAudit(
          tx,
          accountId,
          doer,
          [
            {
              action: 'user.joined',
              target: { type: 'user', id: user.id },
              changes: { role, invitation: invitation!.id },
            },
          ],
          now,
        );
        return { id: user.id, email, role, accountId };
      });
    },
  };
}

function usable(row: repo.InvitationRow | undefined, now: Date): void {
  if (!row) throw new NotFoundError('Invitation');
  if (row.accepted_at) throw new LinkGoneError('This invitation has already been used. Sign in instead.');
  if (row.cancelled_at) throw new LinkGoneError('This invitation was cancelled. Ask for a new one.');
  if (row.expires_at <= now) {
    throw new LinkGoneError('This invitation has expired (links work for 7 days). Ask for a new one.');
  }
}
