import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { chmod, chown, mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  DATA_DIR_FILES,
  END_MANIFEST,
  MANIFEST,
  type BackupManifest,
} from './backup.js';
import { clusterOwner, embeddedPostgresMajor, startEmbeddedPostgres } from './embedded.js';
import { readTar } from './tar.js';

// `certsvc restore`: unpacks a backup of platform/db/backup.ts into an empty data folder, then starts
// PostgreSQL on it once, which replays the WAL in the backup up to the backup's end, and stops it.
// Anything wrong leaves the folder as it was: empty (or absent).

export class RestoreRefused extends Error {}

export interface RestoreResult {
  dataDir: string;
  createdAt: string;
  files: number;
  certificates: number;
}

async function emptyOrAbsent(dataDir: string): Promise<boolean> {
  let st;
  try {
    st = await stat(dataDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (!st.isDirectory()) throw new RestoreRefused(`${dataDir} is not a folder`);
  const entries = await readdir(dataDir);
  if (entries.length > 0) {
    throw new RestoreRefused(
      `${dataDir} is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}, e.g. ${entries.sort()[0]}): ` +
        'restore only into an empty or new folder (set DATA_DIR to one)',
    );
  }
  return true;
}

// Where an entry goes, or a refusal for one that is not of a backup (absolute, "..", unknown).
function target(dataDir: string, name: string): string {
  const parts = name.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new RestoreRefused(`the backup holds an entry with an unsafe name: ${name}`);
  }
  if (parts[0] !== 'pg' && !(parts.length === 1 && DATA_DIR_FILES.includes(name))) {
    throw new RestoreRefused(`the backup holds an unexpected entry: ${name}`);
  }
  return path.join(dataDir, ...parts);
}

async function readManifest(text: string, postgresMajor: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch {
    throw new RestoreRefused(`not a certsvc backup (${MANIFEST} is not JSON)`);
  }
  if (manifest.format !== BACKUP_FORMAT || manifest.version !== BACKUP_VERSION) {
    throw new RestoreRefused(`not a certsvc backup of a format this version reads (${MANIFEST})`);
  }
  if (manifest.postgresMajor !== postgresMajor) {
    throw new RestoreRefused(
      `the backup holds a PostgreSQL ${manifest.postgresMajor} cluster and this certsvc runs PostgreSQL ` +
        `${postgresMajor}: restore it with the certsvc version that made it`,
    );
  }
  return manifest;
}

async function unpack(from: string, dataDir: string): Promise<{ manifest: BackupManifest; files: number }> {
  const postgresMajor = await embeddedPostgresMajor();
  const fh = await open(from, 'r');
  let manifest: BackupManifest | undefined;
  let files = 0;
  let end: { files: number } | undefined;
  try {
    const complete = await readTar(fh, async (entry, data) => {
      const asText = async () => {
        if (entry.size > 1 << 20) throw new RestoreRefused(`${entry.name} in the backup is too large`);
        const chunks: Buffer[] = [];
        await data(async (c) => void chunks.push(Buffer.from(c)));
        return Buffer.concat(chunks).toString('utf8');
      };
      if (!manifest) {
        if (entry.name !== MANIFEST) throw new RestoreRefused(`not a certsvc backup (no ${MANIFEST} first)`);
        manifest = await readManifest(await asText(), postgresMajor);
        return;
      }
      if (end) throw new RestoreRefused(`the backup has entries after ${END_MANIFEST}`);
      if (entry.name === END_MANIFEST) {
        end = JSON.parse(await asText()) as { files: number };
        if (end.files !== files + 1) throw new RestoreRefused('the backup does not hold the files it lists');
        return;
      }
      const file = target(dataDir, entry.name);
      files++;
      if (entry.type === 'dir') {
        await mkdir(file, { recursive: true, mode: 0o700 });
        return;
      }
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const out: WriteStream = createWriteStream(file, { flags: 'wx', mode: 0o600 });
      const opened = new Promise<void>((resolve, reject) =>
        out.once('open', () => resolve()).once('error', reject),
      );
      await opened;
      await data(
        (chunk) =>
          new Promise<void>((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve()))),
      );
      out.end();
      await finished(out);
    });
    if (!manifest) throw new RestoreRefused('not a certsvc backup (empty)');
    if (!complete || !end) throw new RestoreRefused('the backup is incomplete (cut short?)');
  } catch (err) {
    if (err instanceof RestoreRefused) throw err;
    throw new RestoreRefused(`cannot read ${from}: ${(err as Error).message}`);
  } finally {
    await fh.close();
  }
  for (const needed of ['pg/PG_VERSION', 'pg/backup_label', 'embedded-postgres.json']) {
    if (!existsSync(path.join(dataDir, needed))) throw new RestoreRefused(`the backup holds no ${needed}`);
  }
  return { manifest: manifest!, files };
}

// As root PostgreSQL runs as the `postgres` user (platform/db/embedded.ts): it must own its cluster
// and be able to pass through DATA_DIR.
async function handOver(dataDir: string): Promise<void> {
  const clusterDir = path.join(dataDir, 'pg');
  await chmod(clusterDir, 0o700);
  const owner = await clusterOwner(clusterDir);
  if (owner.uid === undefined) return;
  const { mode } = await stat(dataDir);
  if ((mode & 0o001) === 0) await chmod(dataDir, (mode & 0o7777) | 0o001);
  const walk = async (dir: string): Promise<void> => {
    await chown(dir, owner.uid!, owner.gid!);
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else await chown(full, owner.uid!, owner.gid!);
    }
  };
  await walk(clusterDir);
}

// The first start: PostgreSQL replays the backup's WAL, then answers; certsvc stops it again.
async function firstStart(dataDir: string): Promise<number> {
  const embedded = await startEmbeddedPostgres(dataDir);
  try {
    const client = new pg.Client({ connectionString: embedded.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        "SELECT CASE WHEN to_regclass('certificates') IS NULL THEN 0 ELSE (SELECT count(*)::int FROM certificates) END AS n",
      );
      return rows[0]!.n;
    } finally {
      await client.end();
    }
  } finally {
    await embedded.release();
  }
}

export async function restoreEmbedded(from: string, dataDir: string): Promise<RestoreResult> {
  const existed = await emptyOrAbsent(dataDir);
  const st = await stat(from).catch(() => undefined);
  if (!st?.isFile()) throw new RestoreRefused(`${from} is not a file`);
  await mkdir(dataDir, { recursive: true });
  try {
    const { manifest, files } = await unpack(from, dataDir);
    await handOver(dataDir);
    const certificates = await firstStart(dataDir).catch(async (err: Error) => {
      const log = await readFile(path.join(dataDir, 'postgres.log'), 'utf8').catch(() => '');
      const tail = log.trim().split('\n').slice(-5).join('\n');
      throw new Error(
        `PostgreSQL did not start on the restored folder: ${err.message}${tail ? `\n${tail}` : ''}`,
      );
    });
    return { dataDir, createdAt: manifest.createdAt, files, certificates };
  } catch (err) {
    // Back to how it was: an empty folder, or none.
    if (existed) {
      for (const name of await readdir(dataDir))
        await rm(path.join(dataDir, name), { recursive: true, force: true });
    } else {
      await rm(dataDir, { recursive: true, force: true });
    }
    throw err;
  }
}
