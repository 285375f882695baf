import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { mintClaimToken, resolveClaimToken } from '../../src/modules/shared/claim-tokens.js';
import { purgeExpiredWalletGrants } from '../../src/modules/wallet/wallet-purge.repository.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// The wallets' short-lived rows are deleted a day after they expire, and only then.

describe("the purge of the wallets' expired codes, tokens, nonces and exchanges", () => {
  let t: TestApp;
  let tenant: Tenant;
  before(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.deps);
  });
  after(async () => {
    await t?.close();
  });

  const HOUR = 3_600_000;
  async function rows(tokenId: string, accountId: string, expiresAt: Date) {
    const created = new Date(expiresAt.getTime() - 10 * 60_000);
    const db = t.deps.db;
    await db.query(
      `INSERT INTO oid4vci_pre_authorized_codes (id, claim_token_id, account_id, code_sha256, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [randomUUID(), tokenId, accountId, randomBytes(32), created, expiresAt],
    );
    await db.query(
      `INSERT INTO oid4vci_access_tokens (id, claim_token_id, account_id, token_sha256, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [randomUUID(), tokenId, accountId, randomBytes(32), created, expiresAt],
    );
    await db.query(
      'INSERT INTO oid4vci_nonces (nonce_sha256, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
      [randomBytes(32), accountId, created, expiresAt],
    );
    await db.query(
      `INSERT INTO vcapi_exchanges (id, claim_token_id, challenge, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5)`,
      [randomUUID(), tokenId, randomUUID(), created, expiresAt],
    );
  }
  async function left(accountId: string, tokenId: string) {
    const { rows: r } = await t.deps.db.query<{ n: number }>(
      `SELECT ((SELECT count(*) FROM oid4vci_pre_authorized_codes WHERE account_id = $1)
             + (SELECT count(*) FROM oid4vci_access_tokens WHERE account_id = $1)
             + (SELECT count(*) FROM oid4vci_nonces WHERE account_id = $1)
             + (SELECT count(*) FROM vcapi_exchanges WHERE claim_token_id = $2))::int AS n`,
      [accountId, tokenId],
    );
    return r[0]!.n;
  }

  it('deletes what expired more than a day ago, keeps what expired since and what is still valid', async () => {
    const c = await issueCertificate(t.app, tenant);
    const now = new Date();
    const { tokenId } = await resolveClaimToken(t.deps.db, await mintClaimToken(t.deps.db, c.id, now), now);
    const at = (ms: number) => new Date(now.getTime() + ms);
    await rows(tokenId, tenant.accountId, at(-49 * HOUR)); // expired two days ago: deleted
    await rows(tokenId, tenant.accountId, at(-23 * HOUR)); // expired within the day: kept
    await rows(tokenId, tenant.accountId, at(HOUR)); // valid: kept
    assert.equal(await left(tenant.accountId, tokenId), 12);

    // Other accounts' rows may be purged by the same call: count this account's alone.
    await purgeExpiredWalletGrants(t.deps.db, now);
    assert.equal(await left(tenant.accountId, tokenId), 8);
    // A day later the second set goes too; the third, expired 23 hours before then, stays.
    await purgeExpiredWalletGrants(t.deps.db, at(24 * HOUR + 1));
    assert.equal(await left(tenant.accountId, tokenId), 4);
    // The claim token itself stays.
    const { rows: tokens } = await t.deps.db.query('SELECT 1 FROM claim_tokens WHERE id = $1', [tokenId]);
    assert.equal(tokens.length, 1);
  });
});
