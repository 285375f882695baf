import type { Db } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { recordAudit } from '../audit/audit-log.js';
import type { Role } from '../shared/roles.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { createInvitations, listPending, type TeamActor, type TeamMail } from './invitations.service.js';

export type { InvitationView, TeamActor, TeamMail } from './invitations.service.js';
import { createResetLink } from './password-resets.js';
import * as repo from './team.repository.js';
import { assertMayChange, assertMayGiveRole, assertOwnerRemains } from './team-rules.js';
import { userEmail, userRole } from './users.service.js';

// The team of an account (issue 29): its users and their roles, invitations by email, role changes
// and removals. Every change and its audit event commit together; changes of roles lock the
// account's users first, so concurrent requests cannot leave it without an owner.

export interface MemberView {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  lastSignInAt: string | null;
  twoFactor: boolean;
}

function memberView(row: repo.MemberRow): MemberView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    createdAt: row.created_at.toISOString(),
    lastSignInAt: row.last_sign_in_at?.toISOString() ?? null,
    twoFactor: row.two_factor_enabled_at !== null,
  };
}

export function createTeamService(deps: { db: Db; now: () => Date; mail: TeamMail; publicBaseUrl: string }) {
  const { db } = deps;

  async function accountName(accountId: string): Promise<string> {
    const account = await findAccount(db, accountId);
    if (!account) throw new NotFoundError('Account');
    return account.name;
  }

  // The locked members, the target among them, and what the roles would be after `next`.
  async function lockTarget(tx: Parameters<typeof repo.lockMembers>[0], accountId: string, userId: string) {
    const members = await repo.lockMembers(tx, accountId);
    const target = members.find((m) => m.id === userId);
    if (!target) throw new NotFoundError('User');
    return { members, target };
  }

  return {
    ...createInvitations({ ...deps, accountName }),
    async list(accountId: string) {
      return {
        members: (await repo.listMembers(db, accountId)).map(memberView),
        invitations: await listPending(db, accountId, deps.now()),
      };
    },

    async memberByEmail(accountId: string, email: string): Promise<MemberView> {
      const wanted = userEmail(email);
      const found = (await repo.listMembers(db, accountId)).find((m) => m.email === wanted);
      if (!found) throw new NotFoundError('User');
      return memberView(found);
    },

    // A password reset link for the user with this email (the CLI's `user reset-password`).
    async resetLink(accountId: string, email: string) {
      const member = await this.memberByEmail(accountId, email);
      const link = await createResetLink(db, member.id, deps.now());
      return {
        user: member,
        url: `${deps.publicBaseUrl}${link.path}`,
        expiresAt: link.expiresAt.toISOString(),
      };
    },

    async changeRole(accountId: string, by: TeamActor, userId: string, input: string) {
      const role = userRole(input);
      return db.transaction(async (tx) => {
        const { members, target } = await lockTarget(tx, accountId, userId);
        if (target.role === role) return memberView(target);
        assertMayGiveRole(by.role, role);
        assertMayChange(by.role, target.role, 'demote');
        assertOwnerRemains(
          target.role,
          members.map((m) => (m.id === userId ? role : m.role)),
        );
        await repo.setRole(tx, accountId, userId, role);
        await recordAudit(
          tx,
          accountId,
          by,
          [
            {
              action: 'user.role_changed',
              target: { type: 'user', id: userId },
              changes: { from: target.role, to: role },
            },
          ],
          deps.now(),
        );
        return memberView({ ...target, role });
      });
    },

    // The row goes with its sessions (their next request is signed out); their API keys stay.
    async remove(accountId: string, by: TeamActor, userId: string) {
      return db.transaction(async (tx) => {
        const { members, target } = await lockTarget(tx, accountId, userId);
        assertMayChange(by.role, target.role, 'remove');
        assertOwnerRemains(
          target.role,
          members.filter((m) => m.id !== userId).map((m) => m.role),
        );
        await repo.deleteMember(tx, accountId, userId);
        await recordAudit(
          tx,
          accountId,
          by,
          [
            {
              action: 'user.removed',
              target: { type: 'user', id: userId },
              changes: { email: target.email, role: target.role },
            },
          ],
          deps.now(),
        );
        return memberView(target);
      });
    },
  };
}

export type TeamService = ReturnType<typeof createTeamService>;
