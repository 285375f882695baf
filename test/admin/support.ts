import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Secret, TOTP } from 'otpauth';
import { createApp } from '../../src/app.js';
import { createDeps, createLogger } from '../../src/deps.js';
import { testConfig, type TestApp } from '../helpers/app.js';
import type { FormClient } from '../dashboard/form-client.js';

export const PASSWORD = 'correct horse battery staple';

// The test app with a clock the test moves (TOTP steps).
export async function startClockedApp(): Promise<TestApp & { clock: { now: Date } }> {
  const config = testConfig();
  const clock = { now: new Date() };
  const deps = await createDeps(config, { logger: createLogger(config), now: () => clock.now });
  const app = await createApp(deps);
  return {
    app,
    deps,
    clock,
    async close() {
      await app.close();
      await deps.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

let operators = 0;
export async function newOperator(t: TestApp): Promise<{ id: string; email: string }> {
  const email = `operator-${process.pid}-${Date.now()}-${++operators}@ops.test`;
  const { operator } = await t.deps.services.operators.create({ email, password: PASSWORD });
  return { id: operator.id, email };
}

// What an authenticator app shows for this secret at `at`.
export function codeAt(secret: string, at: Date): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at.getTime(),
  });
}

export function secretOf(body: string): string {
  const m = /id="totp-secret"[^>]*>([A-Z2-7]+)</.exec(body);
  assert.ok(m, 'the set-up page shows the secret as text');
  return m[1]!;
}

// Password, then (first time) set-up with a code: the console is open afterwards. Returns the secret.
export async function operatorSignIn(
  client: FormClient,
  op: { email: string },
  at: Date,
  secret?: string,
): Promise<string> {
  await client.get('/admin');
  const res = await client.post('/admin/sign-in', { email: op.email, password: PASSWORD });
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(res.headers.location, '/admin/two-factor');
  const page = await client.get('/admin/two-factor');
  assert.equal(page.statusCode, 200);
  const known = secret ?? secretOf(page.body);
  const done = await client.post('/admin/two-factor', { code: codeAt(known, at) });
  assert.equal(done.statusCode, 303, done.body);
  assert.equal(done.headers.location, '/admin');
  return known;
}
