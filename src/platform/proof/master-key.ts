import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// The embedded default's master key for signing keys: made once into the data folder, readable by
// this user only (0600), and reused. A copy of the database alone cannot open the keys it seals.
export function dataDirMasterKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'signing-keys.secret');
  try {
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} does not hold 64 hex digits`);
  return Buffer.from(hex, 'hex');
}
