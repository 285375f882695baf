import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

// Two-factor sign-in codes (RFC 6238: SHA-1, 6 digits, 30-second steps, as every authenticator app
// reads them) and single-use recovery codes. Used by users' and operators' sign-in alike.

export const TOTP_PERIOD_S = 30;

function totp(secretBase32: string, issuer: string, label: string): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new 160-bit secret, in base32 (what people type into an app that cannot scan). */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// link an authenticator app scans. */
export function totpUri(secretBase32: string, issuer: string, label: string): string {
  return totp(secretBase32, issuer, label).toString();
}

/**
 * The time step a code belongs to when it is right at `now` (one step of drift either side), or
 * undefined. Callers store the last step used and refuse it again, so a code works once.
 */
export function totpStep(secretBase32: string, code: string, now: Date): number | undefined {
  const digits = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(digits)) return undefined;
  const delta = totp(secretBase32, 'certsvc', 'x').validate({
    token: digits,
    timestamp: now.getTime(),
    window: 1,
  });
  if (delta === null) return undefined;
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_S) + delta;
}

// 32 letters and digits, without l, o, 0 and 1: each byte's low 5 bits pick one, without bias.
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** Ten recovery codes as shown once (xxxxx-xxxxx, 50 bits each). Store only their hashes. */
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b & 31]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5, 10)}`;
  });
}

/** The stored form of a recovery code: SHA-256 of it, lower-cased, without spaces or dashes. */
export function recoveryCodeHash(code: string): string {
  const plain = code.toLowerCase().replace(/[\s-]+/g, '');
  return createHash('sha256').update(plain).digest('base64url');
}

/** The index of the stored hash this code matches, or -1. */
export function matchRecoveryCode(code: string, hashes: readonly string[]): number {
  const wanted = Buffer.from(recoveryCodeHash(code));
  return hashes.findIndex((h) => {
    const b = Buffer.from(h);
    return b.length === wanted.length && timingSafeEqual(b, wanted);
  });
}
