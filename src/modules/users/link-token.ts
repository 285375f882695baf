import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../platform/errors.js';

// The single-use links of the team (invitations, password resets): 32 random bytes in the URL, only
// their SHA-256 in the database.

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function newLinkToken(): { token: string; hash: Buffer } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: linkTokenHash(token) };
}

export function linkTokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function isLinkToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN.test(value);
}

// A link that was real but can no longer be used (used, cancelled, expired): the page answers 410.
export class LinkGoneError extends AppError {
  constructor(message: string) {
    super('gone', message);
  }
}
