import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { testConfig } from '../helpers/app.js';

// An account's first credential key and first PDF signing certificate are made on first use. When
// that use is inside a transaction (an import's chunk, the backfill), two of them making the two in
// opposite order must not wait for each other: each is committed at once on its own connection.

describe('first signing keys', () => {
  let deps: Deps;
  before(async () => {
    const config = testConfig({ LOG_LEVEL: 'silent' });
    deps = await createDeps(config, { logger: createLogger(config) });
  });
  after(async () => {
    await deps?.close();
  });

  it('two transactions making them in opposite order both finish, with one key and one certificate', async () => {
    const s = deps.services;
    const account = await s.accounts.create({
      name: 'First Use Academy',
      plan: 'Business',
      monthlyLimit: null,
    });
    let arrived = 0;
    let release: () => void = () => undefined;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    const meet = async () => {
      if (++arrived === 2) release();
      await bothStarted;
    };
    const at = new Date();
    const keyFirst = deps.db.transaction(async () => {
      const key = await s.signingKeys.credentialKey(account.id);
      await meet();
      const certificate = await s.signingKeys.pdfKey(account.id, at);
      return [key.id, certificate.id];
    });
    const certificateFirst = deps.db.transaction(async () => {
      const certificate = await s.signingKeys.pdfKey(account.id, at);
      await meet();
      const key = await s.signingKeys.credentialKey(account.id);
      return [key.id, certificate.id];
    });
    const [a, b] = await Promise.all([keyFirst, certificateFirst]);
    assert.deepEqual(a, b, 'both use the same key and certificate');
    const { rows } = await deps.db.query(
      `SELECT (SELECT count(*) FROM signing_keys WHERE account_id = $1) AS keys,
              (SELECT count(*) FROM pdf_signing_certificates WHERE account_id = $1) AS certificates`,
      [account.id],
    );
    assert.deepEqual(rows[0], { keys: 1, certificates: 1 });
  });
});
