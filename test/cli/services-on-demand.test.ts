import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { commands } from '../../src/cli/commands.js';
import { SERVICE_NAMES } from '../../src/services.js';
import { testConfig } from '../helpers/app.js';

// Issue 33: a certsvc command builds only the services it names (and what they need); the others
// are absent, and using one is a clear error rather than a silent load.
describe('services on demand', () => {
  let deps: Deps;
  before(async () => {
    const config = testConfig();
    deps = await createDeps(config, { logger: createLogger(config), services: ['accounts'] });
  });
  after(() => deps.close());

  it('builds the named service, and refuses one it was not asked for by name', async () => {
    const account = await deps.services.accounts.create({ name: 'On demand', plan: 'Business' });
    assert.equal((await deps.services.accounts.get(account.id)).name, 'On demand');
    assert.throws(() => deps.services.issue.issueBatch, /the issue service was not built for this command/);
    assert.throws(() => deps.services.templates.list, /the templates service was not built/);
  });

  it('builds what a named service needs (imports: issue, proof, signing keys, emails, accounts)', async () => {
    const config = testConfig();
    const more = await createDeps(config, { logger: createLogger(config), services: ['imports'] });
    try {
      for (const name of ['imports', 'issue', 'proof', 'signingKeys', 'emails', 'accounts'] as const) {
        assert.ok(
          Object.values(more.services[name]).some((v) => typeof v === 'function'),
          name,
        );
      }
      assert.throws(() => more.services.verify.verify, /verify service was not built/);
    } finally {
      await more.close();
    }
  });

  it('every command names known services', () => {
    for (const command of commands) {
      for (const name of command.services ?? []) {
        assert.ok(SERVICE_NAMES.includes(name), `${command.path.join(' ')}: ${name}`);
      }
    }
  });
});
