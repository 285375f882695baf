import type { FileHandle } from 'node:fs/promises';

// A minimal POSIX ustar archive: regular files and folders, names up to 255 bytes, files up to
// 8 GiB (PostgreSQL splits relations into 1 GiB files). Enough for the embedded default's backups
// (platform/db/backup.ts), and readable by any `tar`. No dependency for a format this small.

const BLOCK = 512;
const MAX_SIZE = 0o77777777777;

export interface TarEntry {
  name: string;
  type: 'file' | 'dir';
  size: number;
  mode: number;
  mtime: number;
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function splitName(name: string): { prefix: string; base: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', base: name };
  for (let i = name.indexOf('/'); i > 0; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const base = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(base) <= 100) return { prefix, base };
  }
  throw new Error(`name too long for a tar archive: ${name}`);
}

export function tarHeader(entry: TarEntry): Buffer {
  if (entry.size > MAX_SIZE) throw new Error(`${entry.name} is larger than a tar entry holds (8 GiB)`);
  const h = Buffer.alloc(BLOCK);
  const { prefix, base } = splitName(entry.type === 'dir' ? `${entry.name}/` : entry.name);
  h.write(base, 0, 100, 'utf8');
  h.write(octal(entry.mode & 0o7777, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(entry.type === 'dir' ? 0 : entry.size, 12), 124, 'ascii');
  h.write(octal(Math.max(0, Math.floor(entry.mtime)), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write(entry.type === 'dir' ? '5' : '0', 156, 'ascii');
  h.write('ustar\u000000', 257, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** Zeros that fill a file's data up to the next 512-byte block. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The two empty blocks that end an archive. */
export const TAR_END = Buffer.alloc(2 * BLOCK);

function field(h: Buffer, start: number, length: number): string {
  const raw = h.subarray(start, start + length);
  const nul = raw.indexOf(0);
  return raw.subarray(0, nul < 0 ? length : nul).toString('utf8');
}

function number(h: Buffer, start: number, length: number, what: string): number {
  const text = field(h, start, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new Error(`not a tar archive (bad ${what})`);
  return text === '' ? 0 : parseInt(text, 8);
}

/**
 * Reads the archive's entries in order: `onEntry` gets each entry and a reader of its data (called
 * at most once). Returns whether the archive ended with its end blocks (a cut file does not).
 */
export async function readTar(
  fh: FileHandle,
  onEntry: (
    entry: TarEntry,
    data: (sink: (chunk: Buffer) => Promise<void>) => Promise<void>,
  ) => Promise<void>,
): Promise<boolean> {
  const header = Buffer.alloc(BLOCK);
  let position = 0;
  for (;;) {
    const { bytesRead } = await fh.read(header, 0, BLOCK, position);
    if (bytesRead < BLOCK) return false;
    position += BLOCK;
    if (header.every((b) => b === 0)) return true;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
    if (number(header, 148, 8, 'checksum') !== sum || field(header, 257, 6) !== 'ustar') {
      throw new Error('not a tar archive (a header does not check)');
    }
    const flag = field(header, 156, 1);
    if (flag !== '0' && flag !== '' && flag !== '5') {
      throw new Error(`unexpected entry type "${flag}" in the archive`);
    }
    const prefix = field(header, 345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(header, 0, 100);
    const type = flag === '5' ? 'dir' : 'file';
    const size = type === 'dir' ? 0 : number(header, 124, 12, 'size');
    const entry: TarEntry = {
      name: name.replace(/\/$/, ''),
      type,
      size,
      mode: number(header, 100, 8, 'mode'),
      mtime: number(header, 136, 12, 'mtime'),
    };
    const start = position;
    await onEntry(entry, async (sink) => {
      const chunk = Buffer.allocUnsafe(Math.min(size, 1 << 20) || 1);
      for (let done = 0; done < size;) {
        const want = Math.min(chunk.length, size - done);
        const { bytesRead: n } = await fh.read(chunk, 0, want, start + done);
        if (n === 0) throw new Error(`the archive ends inside ${entry.name}: the file is incomplete`);
        await sink(chunk.subarray(0, n));
        done += n;
      }
    });
    position = start + size + tarPadding(size).length;
  }
}
