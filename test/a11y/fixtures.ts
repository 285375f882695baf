import assert from 'node:assert/strict';
import { mintClaimToken } from '../../src/modules/shared/claim-tokens.js';
import type { DashboardEnv, DashboardUser } from '../dashboard/support.js';

// Certificates in each state the verification page shows, issued through the API of a dashboard
// user's account: valid, revoked, expired (its expiry moved into the past), superseded (reissued).

export interface Codes {
  valid: string;
  revoked: string;
  expired: string;
  superseded: string;
  /** The id of the valid certificate (its dashboard page). */
  validId: string;
  /** A wallet link's token of the valid certificate (the claim page). */
  claimToken: string;
}

async function api(env: DashboardEnv, user: DashboardUser, url: string, payload: object) {
  const res = await env.t.app.inject({ method: 'POST', url, headers: user.tenant.auth, payload });
  assert.ok(res.statusCode < 300, res.body);
  return res.json().data as { id: string; uniqueCode: string };
}

export async function certificatesInEveryState(env: DashboardEnv, user: DashboardUser): Promise<Codes> {
  const issue = (name: string) =>
    api(env, user, '/api/v1/certificates', {
      templateId: user.tenant.templateId,
      recipient: { name, email: 'ada@example.com', data: { course: 'Analytical Engines' } },
    });
  const valid = await issue('Ada Lovelace');
  const revoked = await issue('Grace Hopper');
  await api(env, user, `/api/v1/certificates/${revoked.id}/revoke`, { reason: 'Issued by mistake' });
  const expired = await issue('Katherine Johnson');
  await env.t.deps.db.query("UPDATE certificates SET expires_at = now() - interval '1 day' WHERE id = $1", [
    expired.id,
  ]);
  const superseded = await issue('Ada Lovelase');
  await api(env, user, `/api/v1/certificates/${superseded.id}/reissue`, {
    recipient: { name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Analytical Engines' } },
  });
  return {
    valid: valid.uniqueCode,
    revoked: revoked.uniqueCode,
    expired: expired.uniqueCode,
    superseded: superseded.uniqueCode,
    validId: valid.id,
    claimToken: await mintClaimToken(env.t.deps.db, valid.id, new Date()),
  };
}
