import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestApp } from '../helpers/app.js';

// The per-IP buckets use the socket address, or X-Forwarded-For when TRUST_PROXY is set.
async function remainingFor(
  env: Record<string, string>,
  forwardedFor: string[],
  peer = '10.0.0.1',
): Promise<string[]> {
  const t = await startTestApp(env);
  try {
    const out: string[] = [];
    for (const xff of forwardedFor) {
      const res = await t.app.inject({
        url: '/api/v1/verify/0000000000000000',
        remoteAddress: peer,
        headers: { 'x-forwarded-for': xff },
      });
      assert.equal(res.statusCode, 404);
      out.push(String(res.headers['x-ratelimit-remaining']));
    }
    return out;
  } finally {
    await t.close();
  }
}

describe('client IP', () => {
  it('without TRUST_PROXY, X-Forwarded-For is ignored: one bucket for the socket address', async () => {
    assert.deepEqual(await remainingFor({}, ['203.0.113.1', '203.0.113.2', '203.0.113.3']), [
      '59',
      '58',
      '57',
    ]);
  });

  it('with TRUST_PROXY, each forwarded client has its own bucket', async () => {
    assert.deepEqual(
      await remainingFor({ TRUST_PROXY: '1' }, ['203.0.113.1', '203.0.113.2', '203.0.113.1']),
      ['59', '59', '58'],
    );
  });

  it('with TRUST_PROXY naming the proxy, only that proxy is believed', async () => {
    const env = { TRUST_PROXY: '10.9.9.9, 192.168.0.0/16' };
    const rotated = ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4'];
    // A client that is not the proxy rotates X-Forwarded-For: still one bucket, its own address.
    assert.deepEqual(await remainingFor(env, rotated, '10.0.0.1'), ['59', '58', '57', '56']);
    // The named proxy (and one inside the CIDR) forwards distinct clients: one bucket each.
    assert.deepEqual(await remainingFor(env, rotated, '10.9.9.9'), ['59', '59', '59', '59']);
    assert.deepEqual(await remainingFor(env, ['203.0.113.1', '203.0.113.1'], '192.168.4.4'), ['59', '58']);
  });
});
