import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { createApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { displayPrefix, generateKey, hashKey, isWellFormedKey } from '../../src/modules/shared/key-format.js';
import type { Db } from '../../src/platform/db/db.js';
import { isUniqueCode, secureRandomBytes, uniqueCode, uuidv7 } from '../../src/platform/ids.js';
import { createTenant, startTestApp, type TestApp } from '../helpers/app.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('API key format (docs/api.md, Authentication and limits)', () => {
  it('svc_live_ + 26 random base62 + the 6-character base62 CRC32 of those 26', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateKey();
      assert.match(key, /^svc_live_[A-Za-z0-9]{32}$/);
      const body = key.slice(9, 35);
      let n = crc32(body);
      let sum = '';
      for (let j = 0; j < 6; j++) {
        sum = BASE62[n % 62] + sum;
        n = Math.floor(n / 62);
      }
      assert.equal(key.slice(35), sum);
      assert.equal(isWellFormedKey(key), true);
    }
  });

  it('tells a typo from a key offline: any single changed character fails the checksum', () => {
    const key = generateKey();
    for (let i = 9; i < key.length; i++) {
      const other = key[i] === 'a' ? 'b' : 'a';
      assert.equal(isWellFormedKey(key.slice(0, i) + other + key.slice(i + 1)), false, `position ${i}`);
    }
    for (const bad of ['', 'svc_live_', `svc_test_${key.slice(9)}`, `${key}x`, key.slice(0, -1), ` ${key}`]) {
      assert.equal(isWellFormedKey(bad), false, bad);
    }
  });

  it('stores the SHA-256 and shows svc_live_ plus the first 8 characters', () => {
    const key = generateKey();
    assert.deepEqual(hashKey(key), createHash('sha256').update(key).digest());
    assert.equal(displayPrefix(key), key.slice(0, 17));
  });

  it('a malformed token or a wrong checksum is refused without any database lookup', async () => {
    const refuse = () => {
      throw new Error('no lookup expected');
    };
    // The key lookup runs on the pool (its last-use stamp commits on its own).
    const db = { query: refuse, pool: { query: refuse } } as unknown as Db;
    const keys = createApiKeysService({ db, now: () => new Date() });
    const key = generateKey();
    assert.equal(await keys.authenticate('svc_live_short'), undefined);
    assert.equal(await keys.authenticate(`${key.slice(0, -1)}${key.at(-1) === 'A' ? 'B' : 'A'}`), undefined);
    await assert.rejects(keys.authenticate(key), /no lookup expected/, 'a well-formed key is looked up');
  });
});

describe('keys at rest', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('the database holds only the digest and the display prefix, never the key', async () => {
    const tenant = await createTenant(t.deps);
    const { rows } = await t.deps.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [
      tenant.keyId,
    ]);
    const row = rows[0]!;
    assert.deepEqual(row.key_hash, hashKey(tenant.key));
    assert.equal(row.prefix, tenant.key.slice(0, 17));
    assert.ok(!JSON.stringify(row).includes(tenant.key.slice(17)), 'no part of the secret beyond the prefix');
  });
});

describe('ids and codes (docs/api.md, Conventions)', () => {
  it('uuidv7: version 7, variant 10, strictly increasing within a process', () => {
    let previous = '';
    const now = Date.now();
    for (let i = 0; i < 5000; i++) {
      const id = uuidv7(now); // the same millisecond every time
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.ok(id > previous, `${id} > ${previous}`);
      previous = id;
    }
  });

  it('random bytes from the pool: each byte handed out once, across refills, as copies', () => {
    // 4 KiB per refill: 3,000 draws of 10 bytes go through seven refills.
    const seen = new Set<string>();
    const drawn: Buffer[] = [];
    for (let i = 0; i < 3000; i++) {
      const bytes = secureRandomBytes(10);
      assert.equal(bytes.length, 10);
      seen.add(bytes.toString('hex'));
      drawn.push(bytes);
    }
    assert.equal(seen.size, 3000, 'no draw repeats another');
    const first = Buffer.from(drawn[0]!);
    for (let i = 0; i < 500; i++) secureRandomBytes(16);
    assert.deepEqual(drawn[0], first, 'a draw is a copy: later draws do not change it');
    // Byte values spread over the range (not a stuck or zeroed pool).
    const all = Buffer.concat(drawn);
    const distinct = new Set(all).size;
    assert.ok(distinct > 250, `${distinct} distinct byte values in 30,000 bytes`);
    assert.equal(secureRandomBytes(1000).length, 1000, 'a large draw comes straight from the CSPRNG');
  });

  it('unique codes: 16 Crockford base32 characters, case-insensitive input, no I L O U', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const code = uniqueCode();
      assert.match(code, /^[0-9A-HJKMNP-TV-Z]{16}$/);
      seen.add(code);
      assert.equal(isUniqueCode(code.toLowerCase()), true);
    }
    assert.equal(seen.size, 2000);
    for (const bad of [
      '',
      '0'.repeat(15),
      '0'.repeat(17),
      'I'.repeat(16),
      'L'.repeat(16),
      'O'.repeat(16),
      'U'.repeat(16),
      '-'.repeat(16),
    ]) {
      assert.equal(isUniqueCode(bad), false, bad);
    }
  });
});
