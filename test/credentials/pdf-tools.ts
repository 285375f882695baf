import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Poppler's pdfsig and pdfdetach on PDFs in memory, and the signature's parts (docs/proof.md).

let dir: string | undefined;
let fileNo = 0;

export function tempFile(bytes: Buffer, ext = 'pdf'): string {
  dir ??= mkdtempSync(path.join(os.tmpdir(), 'certsvc-signed-pdf-'));
  const file = path.join(dir, `f${++fileNo}.${ext}`);
  writeFileSync(file, bytes);
  return file;
}

export function cleanPdfTools(): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
}

/** pdfsig's report on the PDF (stdout and stderr). */
export function pdfsig(pdf: Buffer): string {
  const r = spawnSync('pdfsig', [tempFile(pdf)], { encoding: 'utf8' });
  return r.stdout + r.stderr;
}

/** The one attached file, credential.json, as pdfdetach saves it. */
export function attachment(pdf: Buffer): Buffer {
  const file = tempFile(pdf);
  const list = execFileSync('pdfdetach', ['-list', file], { encoding: 'utf8' });
  assert.match(list, /^1 embedded files\n1: credential\.json$/m, list);
  const out = `${file}.json`;
  execFileSync('pdfdetach', ['-save', '1', '-o', out, file]);
  return readFileSync(out);
}

export function byteRange(pdf: Buffer): [number, number, number, number] {
  const m = /\/ByteRange \[(\d+) (\d+) (\d+) (\d+)\s*\]/.exec(pdf.toString('latin1'));
  assert.ok(m, 'a /ByteRange');
  return [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
}

/** The bytes the signature covers. */
export function signedContent(pdf: Buffer): Buffer {
  const [, contentsAt, after, tailLength] = byteRange(pdf);
  return Buffer.concat([pdf.subarray(0, contentsAt), pdf.subarray(after, after + tailLength)]);
}

/** The CMS signature (DER) in /Contents, without the unused reserved room after it. */
export function cmsOf(pdf: Buffer): Buffer {
  const [, contentsAt, after] = byteRange(pdf);
  const bytes = Buffer.from(pdf.subarray(contentsAt + 1, after - 1).toString('latin1'), 'hex');
  const count = bytes[1]! & 0x80 ? bytes[1]! & 0x7f : 0;
  const length = count ? 2 + count + bytes.readUIntBE(2, count) : 2 + bytes[1]!;
  return bytes.subarray(0, length);
}

/** `openssl cms -verify` of a detached signature over `content`; `trust`: extra options (default: -noverify). */
export function opensslVerify(cms: Buffer, content: Buffer, trust: string[] = ['-noverify']) {
  return spawnSync(
    'openssl',
    [
      'cms',
      '-verify',
      '-binary',
      '-inform',
      'DER',
      '-in',
      tempFile(cms, 'der'),
      '-content',
      tempFile(content, 'bin'),
      ...trust,
      '-out',
      '/dev/null',
    ],
    { encoding: 'utf8' },
  );
}
