import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Secret, TOTP } from 'otpauth';
import { createApp } from '../../src/app.js';
import { createDeps, createLogger } from '../../src/deps.js';
import { testConfig, type TestApp } from '../helpers/app.js';
import type { FormClient } from './form-client.js';

// Two-factor tests: a test app whose clock the test moves, and codes computed as an authenticator
// app computes them (otpauth's generator, from the secret the profile page shows).

export interface Clock {
  now: Date;
  /** Moves the clock by `ms`. */
  move(ms: number): void;
}

export const PASSWORD = 'correct horse battery staple';
export const STEP_MS = 30_000;

export async function startClockedApp(): Promise<TestApp & { clock: Clock }> {
  // The middle of a 30-second step near the real time (sessions' cookies follow the real clock).
  const start = Math.floor(Date.now() / STEP_MS) * STEP_MS + STEP_MS / 2;
  const clock: Clock = {
    now: new Date(start),
    move(ms) {
      clock.now = new Date(clock.now.getTime() + ms);
    },
  };
  const config = testConfig();
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

export function codeAt(secret: string, at: Date): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at.getTime() });
}

/** Set up from the profile page of a signed-in client: the secret shown and the recovery codes. */
export async function turnOnTwoFactor(client: FormClient, clock: Clock) {
  const start = await client.post('/dashboard/settings/profile/two-factor/start', {});
  assert.equal(start.statusCode, 303, start.body);
  const profile = await client.get('/dashboard/settings/profile');
  const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(profile.body)?.[1];
  assert.ok(secret, 'the profile shows the secret as text');
  const confirm = await client.post('/dashboard/settings/profile/two-factor/confirm', {
    code: codeAt(secret, clock.now),
  });
  assert.equal(confirm.statusCode, 200, confirm.body);
  const codes = [...confirm.body.matchAll(/data-testid="recovery-code">([a-z0-9-]+)</g)].map((m) => m[1]!);
  assert.equal(codes.length, 10);
  return { secret, codes, profile: profile.body, confirm: confirm.body };
}

/** The password step of a sign-in: 303 to the code step when two-factor is on. */
export async function passwordStep(client: FormClient, email: string, password = PASSWORD) {
  await client.get('/dashboard');
  return client.post('/dashboard/sign-in', { email, password });
}
