import type { Db, Queryable } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import type { Origin } from '../../platform/principal.js';
import { recordAudit } from '../audit/audit-log.js';
import { LinkGoneError, linkTokenHash, newLinkToken } from './link-token.js';
import { hashPassword } from './password.js';
import { endSessionsOf } from './team.repository.js';
import { setPasswordHash } from './users.repository.js';
import { assertNewPassword } from './users.service.js';

// Password reset links (issue 29): single use, valid an hour, at /dashboard/reset-password/<token>.
// Made by `certsvc user reset-password` and by the sign-in page's "Forgot password"; consumed by
// the reset page, which sets the password, ends the user's sessions and records the change.

export const RESET_LINK_TTL_MS = 60 * 60 * 1000;
export const RESET_PATH = '/dashboard/reset-password/';

interface ResetRow {
  id: string;
  user_id: string;
  account_id: string;
  email: string;
  expires_at: Date;
  used_at: Date | null;
}

/** A new link for the user (in the caller's transaction): its path, to put after PUBLIC_BASE_URL. */
export async function createResetLink(
  db: Queryable,
  userId: string,
  now: Date,
): Promise<{ path: string; expiresAt: Date }> {
  const { token, hash } = newLinkToken();
  const expiresAt = new Date(now.getTime() + RESET_LINK_TTL_MS);
  await db.query(
    'INSERT INTO password_resets (id, user_id, token_hash, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)',
    [uuidv7(), userId, hash, expiresAt, now],
  );
  return { path: `${RESET_PATH}${token}`, expiresAt };
}

async function findReset(db: Queryable, token: string, lock: boolean): Promise<ResetRow | undefined> {
  const { rows } = await db.query<ResetRow>(
    `SELECT r.id, r.user_id, u.account_id, u.email, r.expires_at, r.used_at
       FROM password_resets r JOIN users u ON u.id = r.user_id
      WHERE r.token_hash = $1 ${lock ? 'FOR UPDATE OF r' : ''}`,
    [linkTokenHash(token)],
  );
  return rows[0];
}

function usable(row: ResetRow | undefined, now: Date): ResetRow {
  if (!row) throw new NotFoundError('Password reset link');
  if (row.used_at) throw new LinkGoneError('This link has already been used. Ask for a new one.');
  if (row.expires_at <= now) {
    throw new LinkGoneError('This link has expired (links work for one hour). Ask for a new one.');
  }
  return row;
}

/** Whose link this is, when it can still be used (the reset page's GET); else a clear refusal. */
export async function openReset(db: Queryable, token: string, now: Date): Promise<{ email: string }> {
  const row = usable(await findReset(db, token, false), now);
  return { email: row.email };
}

/**
 * Sets the new password, marks the link used, ends every session of the user and records
 * `user.password_changed`, all in one transaction. A used, expired or unknown link changes nothing.
 */
export async function consumeReset(
  db: Db,
  input: { token: string; password: string; now: () => Date; origin?: Origin },
): Promise<{ userId: string; accountId: string; email: string }> {
  assertNewPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const now = input.now();
    const row = usable(await findReset(tx, input.token, true), now);
    await setPasswordHash(tx, row.user_id, passwordHash);
    await tx.query('UPDATE password_resets SET used_at = $2 WHERE id = $1', [row.id, now]);
    await endSessionsOf(tx, row.user_id);
    await recordAudit(
      tx,
      row.account_id,
      { actor: { type: 'user', id: row.user_id, label: row.email }, origin: input.origin },
      [
        {
          action: 'user.password_changed',
          target: { type: 'user', id: row.user_id },
          changes: { via: 'reset link' },
        },
      ],
      now,
    );
    return { userId: row.user_id, accountId: row.account_id, email: row.email };
  });
}
