import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../platform/db/db.js';
import { AppError, NotFoundError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';

// The sign-in links and sessions of "My certificates" (decisions 22, migration 036). A link holds
// 32 random bytes (base64url), only their SHA-256 is stored; it works once, within 30 minutes, and
// opens a recipient session: a cookie of its own (never a dashboard session), keyed in its table by
// the SHA-256 of its value, valid an hour.

export const RECIPIENT_LINK_TTL_MS = 30 * 60 * 1000;
export const RECIPIENT_SESSION_TTL_MS = 60 * 60 * 1000;
export const ENTER_PATH = '/my/enter/';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Addresses are matched without regard to case: stored and compared lower-cased. */
export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

// A link that was real but can no longer be used: the page answers 410.
export class RecipientLinkGoneError extends AppError {
  constructor(message: string) {
    super('gone', message);
  }
}

/** A new sign-in link for the address: its path, to put after PUBLIC_BASE_URL. */
export async function createRecipientLink(db: Queryable, email: string, now: Date): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO recipient_links (id, email, token_sha256, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
    [
      uuidv7(now.getTime()),
      normalEmail(email),
      sha256(token),
      now,
      new Date(now.getTime() + RECIPIENT_LINK_TTL_MS),
    ],
  );
  return `${ENTER_PATH}${token}`;
}

/**
 * Uses the link (once: the update is the check, so two clicks at once cannot both succeed) and
 * returns its address; a used or expired link is RecipientLinkGoneError, an unknown one NotFoundError.
 */
export async function useRecipientLink(db: Queryable, token: string, now: Date): Promise<string> {
  if (!TOKEN.test(token)) throw new NotFoundError('Sign-in link');
  const hash = sha256(token);
  const { rows } = await db.query<{ email: string }>(
    `UPDATE recipient_links SET used_at = $2
      WHERE token_sha256 = $1 AND used_at IS NULL AND expires_at > $2 RETURNING email`,
    [hash, now],
  );
  if (rows[0]) return rows[0].email;
  const { rows: found } = await db.query<{ used_at: Date | null }>(
    'SELECT used_at FROM recipient_links WHERE token_sha256 = $1',
    [hash],
  );
  if (!found[0]) throw new NotFoundError('Sign-in link');
  throw new RecipientLinkGoneError(
    found[0].used_at
      ? 'This sign-in link has already been used. Ask for a new one at /my.'
      : 'This sign-in link has expired (links work for 30 minutes). Ask for a new one at /my.',
  );
}

export interface RecipientSession {
  email: string;
  csrf: string;
}

/** A new session for the address: the cookie's value and when it ends. */
export async function openRecipientSession(
  db: Queryable,
  email: string,
  now: Date,
): Promise<{ id: string; expiresAt: Date }> {
  const id = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + RECIPIENT_SESSION_TTL_MS);
  await db.query(
    `INSERT INTO recipient_sessions (id_hash, email, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
    [sha256(id), normalEmail(email), randomBytes(24).toString('base64url'), now, expiresAt],
  );
  // Expired sessions of anyone are cleared as new ones open: the table stays small without a sweeper.
  await db.query('DELETE FROM recipient_sessions WHERE expires_at <= $1', [now]);
  return { id, expiresAt };
}

export async function readRecipientSession(
  db: Queryable,
  id: string,
  now: Date,
): Promise<RecipientSession | undefined> {
  if (!TOKEN.test(id)) return undefined;
  const { rows } = await db.query<RecipientSession>(
    'SELECT email, csrf FROM recipient_sessions WHERE id_hash = $1 AND expires_at > $2',
    [sha256(id), now],
  );
  return rows[0];
}

export async function endRecipientSession(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM recipient_sessions WHERE id_hash = $1', [sha256(id)]);
}
