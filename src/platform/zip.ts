import { crc32 } from 'node:zlib';

// A streaming ZIP writer (PKWARE APPNOTE 6.3): files are stored as they are (PDFs are compressed
// already), each written as soon as it is given, so memory holds one file and the central
// directory (about 100 bytes a file) whatever the count. File names are UTF-8 (flag bit 11).
// Past 4 GiB of output the ZIP64 records are added, so any size opens.

export interface ZipEntry {
  name: string;
  data: Buffer;
  modified: Date;
}

const MAX32 = 0xffffffff;

function dosTime(date: Date): { time: number; date: number } {
  const year = Math.max(1980, date.getUTCFullYear());
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

/** The ZIP file of `entries`, as chunks to stream (Readable.from). */
// The fields a local header and its central directory header share, from `at` on: UTF-8 names,
// stored (no compression), the time, the CRC, both sizes (the same: stored) and the name's length.
function writeEntryFields(
  buffer: Buffer,
  at: number,
  entry: { time: number; date: number; crc: number; size: number; nameLength: number },
): void {
  buffer.writeUInt16LE(0x0800, at); // UTF-8 names
  buffer.writeUInt16LE(0, at + 2); // stored
  buffer.writeUInt16LE(entry.time, at + 4);
  buffer.writeUInt16LE(entry.date, at + 6);
  buffer.writeUInt32LE(entry.crc, at + 8);
  buffer.writeUInt32LE(entry.size, at + 12);
  buffer.writeUInt32LE(entry.size, at + 16);
  buffer.writeUInt16LE(entry.nameLength, at + 20);
}

export async function* zipStream(entries: AsyncIterable<ZipEntry>): AsyncGenerator<Buffer> {
  const central: Buffer[] = [];
  let offset = 0;
  let count = 0;
  for await (const entry of entries) {
    const name = Buffer.from(entry.name.normalize('NFC'), 'utf8');
    const crc = crc32(entry.data);
    const { time, date } = dosTime(entry.modified);
    const size = entry.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0
    writeEntryFields(local, 6, { time, date, crc, size, nameLength: name.length });
    local.writeUInt16LE(0, 28);
    yield Buffer.concat([local, name]);
    yield entry.data;

    const far = offset > MAX32;
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE((3 << 8) | (far ? 45 : 20), 4); // made by: Unix, spec version
    header.writeUInt16LE(far ? 45 : 20, 6);
    writeEntryFields(header, 8, { time, date, crc, size, nameLength: name.length });
    header.writeUInt16LE(far ? 12 : 0, 30); // extra: the ZIP64 offset
    header.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
    header.writeUInt32LE(far ? MAX32 : offset, 42);
    const extra = Buffer.alloc(far ? 12 : 0);
    if (far) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(8, 2);
      extra.writeBigUInt64LE(BigInt(offset), 4);
    }
    central.push(header, name, extra);
    offset += local.length + name.length + size;
    count++;
  }
  const directory = Buffer.concat(central);
  yield directory;
  const directoryAt = offset;
  const end = offset + directory.length;
  const zip64 = directoryAt > MAX32 || count > 0xffff;
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4); // size of the rest of the record
    record.writeUInt16LE((3 << 8) | 45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(count), 24);
    record.writeBigUInt64LE(BigInt(count), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(directoryAt), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(end), 8);
    locator.writeUInt32LE(1, 16);
    yield Buffer.concat([record, locator]);
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(Math.min(count, 0xffff), 8);
  eocd.writeUInt16LE(Math.min(count, 0xffff), 10);
  eocd.writeUInt32LE(Math.min(directory.length, MAX32), 12);
  eocd.writeUInt32LE(zip64 ? MAX32 : directoryAt, 16);
  yield eocd;
}

const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/**
 * A file name part that every common system accepts: no path separators, no characters Windows
 * refuses, no control or bidi-control characters, no leading or trailing dots and spaces, no
 * reserved device name, at most `max` characters; `fallback` when nothing is left.
 */
export function safeFileName(text: string, fallback: string, max = 80): string {
  let name = text
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f<>:"/\\|?*\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[. ]+|[. ]+$/g, '');
  name = [...name]
    .slice(0, max)
    .join('')
    .replace(/[. ]+$/, '');
  if (name === '' || RESERVED.test(name.split('.')[0]!)) return fallback;
  return name;
}
