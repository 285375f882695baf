import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, DEFAULT_PLANS, loadConfig } from '../../src/config.js';

describe('configuration (README, Configuration)', () => {
  it('defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.publicBaseUrl, 'http://localhost:3000');
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.redisUrl, undefined);
    assert.equal(c.smtpUrl, undefined);
    assert.deepEqual(c.corsPartnerDomains, []);
    assert.equal(c.trustProxy, false);
    assert.deepEqual(c.rateLimit, { max: 60, windowS: 60 });
    assert.equal(c.logLevel, 'info');
    assert.deepEqual(c.plans, DEFAULT_PLANS);
    assert.deepEqual(
      DEFAULT_PLANS.map((p) => [p.name, p.apiAccess, p.emailDelivery, p.monthlyLimit]),
      [
        ['Free', false, false, 50],
        ['Pro', false, false, 500],
        ['Business', true, true, 2000],
      ],
    );
  });

  it('PUBLIC_BASE_URL follows PORT and drops a trailing slash; lists and flags are parsed', () => {
    assert.equal(loadConfig({ PORT: '8080' }).publicBaseUrl, 'http://localhost:8080');
    assert.equal(
      loadConfig({ PUBLIC_BASE_URL: 'https://certs.example.org/' }).publicBaseUrl,
      'https://certs.example.org',
    );
    assert.deepEqual(
      loadConfig({ CORS_PARTNER_DOMAINS: ' Partner.Example , academy.test ' }).corsPartnerDomains,
      ['partner.example', 'academy.test'],
    );
    assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,::1,Loopback' }).trustProxy, [
      '10.0.0.1',
      '192.168.0.0/16',
      '::1',
      'loopback',
    ]);
  });

  it('the keep-alive timeout and the shutdown delay: defaults and settings', () => {
    const c = loadConfig({});
    assert.equal(c.httpTimeouts.keepAliveMs, 5_000);
    assert.equal(c.shutdownDelayS, 0);
    const set = loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000', SHUTDOWN_DELAY_S: '5' });
    assert.equal(set.httpTimeouts.keepAliveMs, 65_000);
    assert.equal(set.shutdownDelayS, 5);
    assert.equal(loadConfig({ SHUTDOWN_DELAY_S: '29', SHUTDOWN_TIMEOUT_S: '30' }).shutdownDelayS, 29);
  });

  it('refuses bad values with a ConfigError naming the variable', () => {
    for (const [name, value] of [
      ['PORT', '70000'],
      ['RATE_LIMIT_WINDOW_S', '-1'],
      ['PLANS_JSON', '{'],
      ['CORS_PARTNER_DOMAINS', 'not a domain'],
      // "true" would believe any client's X-Forwarded-For: the proxies must be named.
      ['TRUST_PROXY', 'true'],
      ['TRUST_PROXY', '10.0.0.0/33'],
      ['TRUST_PROXY', 'proxy.internal'],
      ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '500'],
      ['SHUTDOWN_DELAY_S', '-1'],
      // The delay counts within the deadline (25 s by default).
      ['SHUTDOWN_DELAY_S', '25'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: Error) => err instanceof ConfigError && err.message.includes(name),
      );
    }
  });
});
