import { randomBytes, randomFillSync } from 'node:crypto';

// Random bytes for ids, codes and salts, drawn from the CSPRNG 4 KiB at a time: each call to the
// system's generator costs about 0.1 ms here, and a request made four of them (its request id, the
// certificate's id and code, the credential's salt). Every byte is handed out once, as a copy.
const pool = Buffer.allocUnsafe(4096);
let poolOffset = pool.length;
export function secureRandomBytes(size: number): Buffer {
  if (size > 256) return randomBytes(size);
  if (poolOffset + size > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + size));
  poolOffset += size;
  return out;
}

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
  const bytes = secureRandomBytes(16);
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
  const bytes = secureRandomBytes(10);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let out = '';
  for (let i = 15; i >= 0; i--) out += CROCKFORD[Number((bits >> BigInt(i * 5)) & 31n)];
  return out;
}

export function isUniqueCode(input: string): boolean {
  return new RegExp(UNIQUE_CODE_PATTERN).test(input);
}
