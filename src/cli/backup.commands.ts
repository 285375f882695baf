import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { embeddedDatabaseExists, startEmbeddedPostgres } from '../platform/db/embedded.js';
import { required, type Command } from './command.js';
import { CliError, print } from './output.js';

// Backup and restore of the embedded default (docs/operations.md, Backups): a copy made while the
// service runs, restored into an empty data folder. With DATABASE_URL the database is the operator's
// own PostgreSQL, backed up with its own tools (pg_dump): these commands refuse and say so.

function embeddedOnly(config: Config, what: string, tool: string): void {
  if (config.databaseUrl !== undefined) {
    throw new CliError(
      `${what} works on the embedded database only; with DATABASE_URL set, use ${tool} ` +
        '(docs/deploy.md, Backups)',
      2,
    );
  }
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

export const backupCommands: Command[] = [
  {
    path: ['backup'],
    usage: 'backup --out FILE',
    positionals: [],
    options: { out: { type: 'string' } },
    needsDb: false,
    async run(ctx) {
      const { config } = ctx;
      embeddedOnly(config, 'certsvc backup', 'pg_dump --format=custom');
      const out = path.resolve(required(ctx, 'out'));
      if (existsSync(out))
        throw new CliError(`${out} exists: give a new file name (a backup never overwrites)`, 2);
      if (!existsSync(path.dirname(out))) throw new CliError(`no folder ${path.dirname(out)} for ${out}`, 2);
      const clusterDir = path.join(config.dataDir, 'pg');
      if (out === clusterDir || out.startsWith(`${clusterDir}${path.sep}`)) {
        throw new CliError(`the backup cannot be written inside the database folder ${clusterDir}`, 2);
      }
      if (!embeddedDatabaseExists(config.dataDir)) {
        throw new CliError(`no database at ${config.dataDir}: nothing to back up (set DATA_DIR)`, 2);
      }
      ctx.io.err(`certsvc: backing up the embedded database in ${config.dataDir}`);
      const { backupEmbedded } = await import('../platform/db/backup.js');
      const started = Date.now();
      // Reuses the running server's PostgreSQL, or starts it for the backup (and stops it after).
      const embedded = await startEmbeddedPostgres(config.dataDir);
      let result;
      try {
        result = await backupEmbedded(config.dataDir, embedded.url, out);
      } finally {
        await embedded.release();
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const left = ['postgres.log', 'mail/'].filter((n) => existsSync(path.join(config.dataDir, n)));
      print(ctx.io, ctx.json, { ...result, dataDir: config.dataDir, seconds: Number(seconds) }, [
        `Backed up ${config.dataDir} to ${result.out}: ${mb(result.bytes)}, ${result.files} files, in ${seconds} s`,
        `  PostgreSQL cluster at WAL ${result.stopLsn} (${result.walSegments} WAL files), with ${result.included.join(' and ') || 'no other file'}`,
        ...(result.included.includes('signing-keys.secret')
          ? ['  It holds the key that opens the signing keys: keep it as safe as the data folder.']
          : ['  No signing-keys.secret in DATA_DIR: keep SIGNING_KEYS_SECRET, the restore needs it.']),
        ...(left.length > 0 ? [`  Not in it: ${left.join(', ')} (see docs/operations.md, Backups)`] : []),
        `Restore into an empty folder: DATA_DIR=NEW_FOLDER certsvc restore --from ${result.out}`,
      ]);
    },
  },
  {
    path: ['restore'],
    usage: 'restore --from FILE',
    positionals: [],
    options: { from: { type: 'string' } },
    needsDb: false,
    async run(ctx) {
      const { config } = ctx;
      embeddedOnly(config, 'certsvc restore', 'pg_restore');
      const from = path.resolve(required(ctx, 'from'));
      const { restoreEmbedded, RestoreRefused } = await import('../platform/db/restore.js');
      ctx.io.err(`certsvc: restoring ${from} into ${config.dataDir}`);
      let result;
      try {
        result = await restoreEmbedded(from, config.dataDir);
      } catch (err) {
        if (err instanceof RestoreRefused) throw new CliError(err.message, 2);
        throw err;
      }
      print(ctx.io, ctx.json, { ...result, from }, [
        `Restored ${from} (made ${result.createdAt}) into ${result.dataDir}: ${result.certificates} certificates`,
        `Start the service on it with DATA_DIR=${result.dataDir} certsvc serve`,
      ]);
    },
  },
];
