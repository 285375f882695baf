import type { Queryable } from '../../platform/db/db.js';
import type { Role } from '../shared/roles.js';

// SQL of the team: an account's users as Settings > Team shows them, their roles, and invitations.
// Every statement is scoped by the account id.

export interface MemberRow {
  id: string;
  email: string;
  role: Role;
  created_at: Date;
  last_sign_in_at: Date | null;
  two_factor_enabled_at: Date | null;
}

const MEMBER = 'id, email, role, created_at, last_sign_in_at, two_factor_enabled_at';

export async function listMembers(db: Queryable, accountId: string): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `SELECT ${MEMBER} FROM users WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
  return rows;
}

// The account's users, locked for the rest of the transaction: two changes of the team (two
// owners demoting each other) take turns, so the last owner cannot be lost between them.
export async function lockMembers(db: Queryable, accountId: string): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `SELECT ${MEMBER} FROM users WHERE account_id = $1 ORDER BY id FOR UPDATE`,
    [accountId],
  );
  return rows;
}

export async function setRole(db: Queryable, accountId: string, userId: string, role: Role): Promise<void> {
  await db.query('UPDATE users SET role = $3 WHERE account_id = $1 AND id = $2', [accountId, userId, role]);
}

// The user's sessions go with the row (dashboard_sessions.user_id cascades): their next request is
// signed out. Their API keys stay the account's and keep created_by_label.
export async function deleteMember(db: Queryable, accountId: string, userId: string): Promise<void> {
  await db.query('DELETE FROM users WHERE account_id = $1 AND id = $2', [accountId, userId]);
}

export async function endSessionsOf(db: Queryable, userId: string): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE user_id = $1', [userId]);
}

export interface InvitationRow {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  invited_by_label: string | null;
  expires_at: Date;
  accepted_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
}

const INVITATION =
  'id, account_id, email, role, invited_by_label, expires_at, accepted_at, cancelled_at, created_at';

export async function insertInvitation(
  db: Queryable,
  input: {
    id: string;
    accountId: string;
    email: string;
    role: Role;
    tokenHash: Buffer;
    byUserId: string | null;
    byLabel: string | null;
    expiresAt: Date;
  },
): Promise<InvitationRow> {
  const { rows } = await db.query<InvitationRow>(
    `INSERT INTO invitations (id, account_id, email, role, token_hash, invited_by_user_id, invited_by_label, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${INVITATION}`,
    [
      input.id,
      input.accountId,
      input.email,
      input.role,
      input.tokenHash,
      input.byUserId,
      input.byLabel,
      input.expiresAt,
    ],
  );
  return rows[0]!;
}

// Pending: neither accepted nor cancelled nor expired.
export async function listPendingInvitations(
  db: Queryable,
  accountId: string,
  now: Date,
): Promise<InvitationRow[]> {
  const { rows } = await db.query<InvitationRow>(
    `SELECT ${INVITATION} FROM invitations
      WHERE account_id = $1 AND accepted_at IS NULL AND cancelled_at IS NULL AND expires_at > $2
      ORDER BY created_at DESC, id DESC`,
    [accountId, now],
  );
  return rows;
}

export async function lockPendingInvitation(
  db: Queryable,
  accountId: string,
  id: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const { rows } = await db.query<InvitationRow>(
    `SELECT ${INVITATION} FROM invitations
      WHERE account_id = $1 AND id = $2 AND accepted_at IS NULL AND cancelled_at IS NULL AND expires_at > $3
      FOR UPDATE`,
    [accountId, id, now],
  );
  return rows[0];
}

// Any invitation with this token, whatever its state (the page says why it no longer opens).
export async function lockInvitationByToken(
  db: Queryable,
  tokenHash: Buffer,
): Promise<InvitationRow | undefined> {
  const { rows } = await db.query<InvitationRow>(
    `SELECT ${INVITATION} FROM invitations WHERE token_hash = $1 FOR UPDATE`,
    [tokenHash],
  );
  return rows[0];
}

export async function findInvitationByToken(
  db: Queryable,
  tokenHash: Buffer,
): Promise<InvitationRow | undefined> {
  const { rows } = await db.query<InvitationRow>(
    `SELECT ${INVITATION} FROM invitations WHERE token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}

// A new token and a new week: the link sent before stops working.
export async function renewInvitation(
  db: Queryable,
  id: string,
  tokenHash: Buffer,
  expiresAt: Date,
): Promise<void> {
  await db.query('UPDATE invitations SET token_hash = $2, expires_at = $3 WHERE id = $1', [
    id,
    tokenHash,
    expiresAt,
  ]);
}

export async function closeInvitation(
  db: Queryable,
  id: string,
  how: 'accepted_at' | 'cancelled_at',
  now: Date,
): Promise<void> {
  await db.query(`UPDATE invitations SET ${how} = $2 WHERE id = $1`, [id, now]);
}
