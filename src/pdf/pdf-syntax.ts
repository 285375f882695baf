import { deflateSync } from 'node:zlib';

// Small helpers for writing PDF syntax by hand.

// Speed-first: zlib's fastest level, about 10% of rendering saved for PDFs 1.5% larger than at level 6.
export const FLATE_LEVEL = 1;

/** Compresses the data of a /FlateDecode stream. */
export function flate(data: Buffer): Buffer {
  return deflateSync(data, { level: FLATE_LEVEL });
}

/** A number as PDF writes it: at most 3 decimals, never exponent notation. */
export function num(n: number): string {
  const rounded = Math.round(n * 1000) / 1000;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** `#1F2937` -> `0.122 0.161 0.216` (operands of rg / RG). */
export function rgb(hex: string): string {
  const value = Number.parseInt(hex.slice(1), 16);
  return `${num(((value >> 16) & 255) / 255)} ${num(((value >> 8) & 255) / 255)} ${num((value & 255) / 255)}`;
}

// Speed-first: two hex digits per byte from a table (a name's /ActualText, the QR's /Alt per document).
const HEX_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * A text string: printable ASCII as a literal string (PDFDocEncoding has the same bytes; a quarter
 * of the hex form's), anything else as UTF-16BE with byte order mark, in hex form.
 */
export function textString(text: string): string {
  let special = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return hexTextString(text);
    if (c === 0x28 || c === 0x29 || c === 0x5c) special = true; // ( ) \
  }
  return `(${special ? text.replace(/[()\\]/g, '\\$&') : text})`;
}

/** A text string as UTF-16BE with byte order mark, in hex form: safe for any characters. */
export function hexTextString(text: string): string {
  let hex = '<FEFF';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    hex += HEX_BYTE[c >> 8]! + HEX_BYTE[c & 255]!;
  }
  return `${hex}>`;
}

// The last date written: a batch's documents and seals all carry the same one.
let lastDate = { iso: '', pdf: '' };

/** ISO timestamp -> `(D:20261121093000Z)`. */
export function pdfDate(iso: string): string {
  if (iso === lastDate.iso) return lastDate.pdf;
  const date = new Date(iso);
  let pdf = '(D:19700101000000Z)';
  if (!Number.isNaN(date.getTime())) {
    const t = date.toISOString();
    pdf = `(D:${t.slice(0, 4)}${t.slice(5, 7)}${t.slice(8, 10)}${t.slice(11, 13)}${t.slice(14, 16)}${t.slice(17, 19)}Z)`;
  }
  lastDate = { iso, pdf };
  return pdf;
}

export function hex4(n: number): string {
  return n.toString(16).padStart(4, '0');
}

// Cross-reference entries: a free one, and the end of one in use after its 10-digit offset.
const FREE_ENTRY = Buffer.from('0000000000 65535 f \n', 'latin1');
const IN_USE = Buffer.from(' 00000 n \n', 'latin1');

/** Serialises indirect objects, tracking byte offsets for the cross-reference table. */
export class PdfWriter {
  // Text and bytes in the order written. Text becomes bytes only in the file's one buffer (no
  // buffer of its own per run of objects: Buffer.from costs more than the copy).
  private readonly chunks: (Buffer | string)[] = [];
  // Text written since the last buffer, joined (one chunk for a run of objects, not one per object).
  private text = '';
  private length = 0;
  private readonly offsets: number[] = [];

  /** Bytes written so far: where the next object starts. */
  get position(): number {
    return this.length;
  }

  /** Bytes, or text of one byte per character (latin1). */
  raw(bytes: Buffer | string): void {
    if (typeof bytes === 'string') this.text += bytes;
    else {
      this.flushText();
      this.chunks.push(bytes);
    }
    this.length += bytes.length;
  }

  private flushText(): void {
    if (!this.text) return;
    this.chunks.push(this.text);
    this.text = '';
  }

  /** Appends bytes already holding objects, whose offsets relative to the bytes are given. */
  prebuilt(bytes: Buffer, relativeOffsets: ReadonlyMap<number, number>): void {
    for (const [id, at] of relativeOffsets) this.offsets[id] = this.length + at;
    this.raw(bytes);
  }

  object(id: number, body: string): void {
    this.offsets[id] = this.length;
    this.raw(`${id} 0 obj\n${body}\nendobj\n`);
  }

  /** Several objects at once, in one buffer: their bodies must be ASCII (one byte a character). */
  objects(list: readonly (readonly [number, string])[]): void {
    let text = '';
    for (const [id, body] of list) {
      this.offsets[id] = this.length + text.length;
      text += `${id} 0 obj\n${body}\nendobj\n`;
    }
    this.raw(text);
  }

  /**
   * A stream object; its data may be given in pieces (written as they are, not joined first), text
   * of one byte per character among them.
   */
  stream(id: number, dict: string, data: Buffer | readonly (Buffer | string)[]): void {
    const pieces = Buffer.isBuffer(data) ? [data] : data;
    let length = 0;
    for (const piece of pieces) length += piece.length;
    this.offsets[id] = this.length;
    this.raw(`${id} 0 obj\n<< ${dict} /Length ${length} >>\nstream\n`);
    for (const piece of pieces) this.raw(piece);
    this.raw('\nendstream\nendobj\n');
  }

  /** The bytes written so far with each object's offset in them (for prebuilt parts). */
  build(): { bytes: Buffer; offsets: Map<number, number> } {
    const offsets = new Map<number, number>();
    this.offsets.forEach((at, id) => offsets.set(id, at));
    const bytes = Buffer.allocUnsafe(this.length);
    this.copyInto(bytes);
    return { bytes, offsets };
  }

  // What was written, into the start of `out`; the bytes written.
  private copyInto(out: Buffer): number {
    this.flushText();
    let at = 0;
    for (const chunk of this.chunks) {
      at += typeof chunk === 'string' ? out.write(chunk, at, 'latin1') : chunk.copy(out, at);
    }
    return at;
  }

  /**
   * The bytes written so far in shared memory, which threads hand on without copying, with each
   * object's offset by its number (for a document left for its seal: the writer is done with).
   */
  sharedBody(): { bytes: Buffer; offsets: number[] } {
    const bytes = Buffer.from(new SharedArrayBuffer(this.length));
    this.copyInto(bytes);
    return { bytes, offsets: this.offsets };
  }

  /**
   * The file: what was written, then the cross-reference table and the trailer, with the file
   * identifier `fileId` (hex) when given. Written into the file's one buffer (entries as digits, not
   * strings joined).
   */
  finish(rootId: number, infoId: number, fileId?: string): Buffer {
    const xrefAt = this.length;
    const size = this.offsets.length;
    const head = `xref\n0 ${size}\n`;
    const id = fileId ? ` /ID [<${fileId}> <${fileId}>]` : '';
    const trailer = `trailer\n<< /Size ${size} /Root ${rootId} 0 R /Info ${infoId} 0 R${id} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const out = Buffer.allocUnsafe(xrefAt + head.length + 20 * size + trailer.length);
    let at = this.copyInto(out);
    at += out.write(head, at, 'latin1');
    for (let n = 0; n < size; n++) {
      const offset = n === 0 ? undefined : this.offsets[n];
      if (offset === undefined) {
        at += FREE_ENTRY.copy(out, at);
        continue;
      }
      for (let k = 9, v = offset; k >= 0; k--, v = Math.floor(v / 10)) out[at + k] = 0x30 + (v % 10);
      at += 10 + IN_USE.copy(out, at + 10);
    }
    out.write(trailer, at, 'latin1');
    return out;
  }
}
