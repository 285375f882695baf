import { randomBytes } from 'node:crypto';

// UUID version 7: 48-bit unix milliseconds, a 12-bit counter, then random bits. Ids made by one
// process are strictly increasing, so a batch created in one millisecond keeps its input order.
let lastMs = 0;
let seq = 0;
export function uuidv7(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    seq = 0;
  } else if (++seq > 0xfff) {
    lastMs += 1;
    seq = 0;
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (seq >> 8);
  bytes[7] = seq & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// A key of a certificate's data, which is also the key of a template field: a letter, then up to 63
// letters, digits and underscores. The design format, the API's schemas and their messages share it.
export const DATA_KEY_PATTERN = '^[A-Za-z][A-Za-z0-9_]{0,63}$';

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

// The characters of unique codes (Crockford base32); the renderer puts them in every template's subsets.
export const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const UNIQUE_CODE_PATTERN = '^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{16}$';

// 16 Crockford base32 characters carrying 80 bits from the CSPRNG.
export function uniqueCode(): string {
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let out = '';
  for (let i = 15; i >= 0; i--) out += CROCKFORD[Number((bits >> BigInt(i * 5)) & 31n)];
  return out;
}

export function isUniqueCode(input: string): boolean {
  return new RegExp(UNIQUE_CODE_PATTERN).test(input);
}
