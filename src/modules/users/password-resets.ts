import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../platform/db/db.js';
import { uuidv7 } from '../../platform/ids.js';

// Single-use password reset links, valid one hour (issue 29). Only the token's SHA-256 is stored,
// so a copy of the table opens nothing. (The forgot-password side's small version: the team's
// reset page consumes them; the lead reconciles the two at merge.)

export const RESET_LINK_TTL_MS = 60 * 60 * 1000;

const digest = (token: string) => createHash('sha256').update(token).digest();

/** A new reset link's token for the user (256 bits, base64url), valid RESET_LINK_TTL_MS. */
export async function createResetLink(
  db: Queryable,
  userId: string,
  now: Date,
): Promise<{ token: string; path: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + RESET_LINK_TTL_MS);
  await db.query(
    'INSERT INTO password_resets (id, user_id, token_hash, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)',
    [uuidv7(), userId, digest(token), expiresAt, now],
  );
  return { token, path: `/dashboard/reset-password/${token}`, expiresAt };
}

/** Uses a link: its user's id once, while it is valid; undefined when used, expired or unknown. */
export async function consumeResetLink(db: Queryable, token: string, now: Date): Promise<string | undefined> {
  const { rows } = await db.query<{ user_id: string }>(
    `UPDATE password_resets SET used_at = $2
      WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING user_id`,
    [digest(token), now],
  );
  return rows[0]?.user_id;
}
