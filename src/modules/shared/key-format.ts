import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

// svc_live_ + 26 random base62 characters + 6-character base62 CRC32 of those 26 (docs/api.md, Authentication and limits).
export const KEY_PREFIX = 'svc_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^svc_live_[A-Za-z0-9]{32}$/;

export const SCOPES = ['templates:read', 'certificates:read', 'certificates:write', 'audit:read'] as const;
export type Scope = (typeof SCOPES)[number];
/** What a key made without a list of scopes gets: every scope but `audit:read` (decisions 21). */
export const DEFAULT_SCOPES: readonly Scope[] = ['templates:read', 'certificates:read', 'certificates:write'];

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function generateKey(): string {
  let body = '';
  for (let i = 0; i < 26; i++) body += BASE62[randomInt(62)];
  return KEY_PREFIX + body + checksum(body);
}

// True when the token has the key format and a correct checksum: checked offline, before any lookup.
export function isWellFormedKey(token: string): boolean {
  if (!KEY_PATTERN.test(token)) return false;
  const body = token.slice(KEY_PREFIX.length, KEY_PREFIX.length + 26);
  return token.slice(KEY_PREFIX.length + 26) === checksum(body);
}

export function hashKey(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function displayPrefix(token: string): string {
  return token.slice(0, KEY_PREFIX.length + 8);
}
