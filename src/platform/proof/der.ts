// A small DER (ASN.1 Distinguished Encoding Rules) writer and reader: enough for the X.509
// certificates, CMS signatures and RFC 3161 time stamps that PDF signing needs, each built from a
// few fixed shapes. Values are Buffers of whole encodings (tag, length, contents).

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** A whole encoding: tag, length, contents. */
export function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = contents.length === 1 ? contents[0]! : Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(body.length), body]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, ...items);

/** A SET OF, its elements in DER order (sorted by their encodings). */
export function setOf(...items: Buffer[]): Buffer {
  return tlv(0x31, ...[...items].sort(Buffer.compare));
}

/** [n] EXPLICIT: a constructed context tag around one encoding. */
export const explicit = (n: number, ...items: Buffer[]): Buffer => tlv(0xa0 | n, ...items);

/** [n] IMPLICIT of a constructed type: the contents of `encoding` under a context tag. */
export function implicitConstructed(n: number, encoding: Buffer): Buffer {
  return tlv(0xa0 | n, read(encoding).contents);
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes = [40 * parts[0]! + parts[1]!];
  for (const part of parts.slice(2)) {
    const digits: number[] = [];
    for (let v = part; ; v = Math.floor(v / 128)) {
      digits.unshift((v & 0x7f) | (digits.length > 0 ? 0x80 : 0));
      if (v < 128) break;
    }
    bytes.push(...digits);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** An INTEGER from unsigned big-endian bytes (a leading 0 keeps it positive), or a small number. */
export function integer(value: Buffer | number): Buffer {
  let bytes = typeof value === 'number' ? Buffer.from(value.toString(16).padStart(2, '0'), 'hex') : value;
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && bytes[start + 1]! < 0x80) start++;
  bytes = bytes.subarray(start);
  return tlv(0x02, bytes[0]! >= 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

export const octetString = (bytes: Buffer): Buffer => tlv(0x04, bytes);
export const bitString = (bytes: Buffer): Buffer => tlv(0x03, Buffer.from([0]), bytes);
export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
export const nullValue = (): Buffer => Buffer.from([0x05, 0x00]);
export const boolean = (value: boolean): Buffer => Buffer.from([0x01, 0x01, value ? 0xff : 0x00]);

/** UTCTime before 2050, GeneralizedTime from then on (RFC 5280 4.1.2.5). */
export function time(date: Date): Buffer {
  const iso = date.toISOString();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '');
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`))
    : tlv(0x18, Buffer.from(`${digits}Z`));
}

/** AlgorithmIdentifier, with NULL parameters when asked (RSA and the digests). */
export function algorithm(dotted: string, nullParams = false): Buffer {
  return nullParams ? sequence(oid(dotted), nullValue()) : sequence(oid(dotted));
}

export interface Element {
  tag: number;
  /** The whole encoding. */
  bytes: Buffer;
  contents: Buffer;
}

/** The first element of `buffer` (definite lengths only, as DER has). */
export function read(buffer: Buffer, at = 0): Element {
  if (at + 2 > buffer.length) throw new Error('DER: truncated');
  const tag = buffer[at]!;
  if ((tag & 0x1f) === 0x1f) throw new Error('DER: multi-byte tags are not supported');
  let length = buffer[at + 1]!;
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER: unsupported length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buffer[at + 2 + i]!;
    header += count;
  }
  const end = at + header + length;
  if (end > buffer.length) throw new Error('DER: truncated');
  return { tag, bytes: buffer.subarray(at, end), contents: buffer.subarray(at + header, end) };
}

/** The elements inside a constructed encoding's contents. */
export function children(contents: Buffer): Element[] {
  const out: Element[] = [];
  for (let at = 0; at < contents.length;) {
    const element = read(contents, at);
    out.push(element);
    at += element.bytes.length;
  }
  return out;
}

export function readOid(element: Element): string {
  if (element.tag !== 0x06) throw new Error('DER: not an OBJECT IDENTIFIER');
  const bytes = element.contents;
  const parts = [Math.floor(bytes[0]! / 40), bytes[0]! % 40];
  let value = 0;
  for (const b of bytes.subarray(1)) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}
