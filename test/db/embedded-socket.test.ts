import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/platform/db/embedded.js';

// The embedded PostgreSQL listens on a Unix socket in its cluster folder as well as on loopback TCP:
// the service connects through the socket (less CPU per statement), tools and tests through TCP.
// A data folder whose socket path would be too long for Linux (107 bytes) gets TCP only, and still
// starts.

async function serverAddress(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ a: string | null }>('SELECT inet_server_addr()::text AS a')).rows[0]!.a;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL sockets', { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a usual data folder: socketUrl reaches it through the socket, url through TCP', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-sock-'));
    dirs.push(dataDir);
    const embedded = await startEmbeddedPostgres(dataDir);
    try {
      assert.ok(embedded.socketUrl, 'a socket URL');
      assert.equal(await serverAddress(embedded.socketUrl), null, 'no server address: a Unix socket');
      assert.equal(await serverAddress(embedded.url), '127.0.0.1/32');
    } finally {
      await embedded.release();
    }
  });

  it('a data folder too deep for a socket path: TCP only, and it starts', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'certsvc-sock-'));
    dirs.push(root);
    chmodSync(root, 0o711); // as root, PostgreSQL runs as `postgres`, which must reach the folder
    const dataDir = path.join(root, 'd'.repeat(90));
    mkdirSync(dataDir);
    const embedded = await startEmbeddedPostgres(dataDir);
    try {
      assert.equal(embedded.socketUrl, undefined);
      assert.equal(await serverAddress(embedded.url), '127.0.0.1/32');
    } finally {
      await embedded.release();
    }
  });
});
