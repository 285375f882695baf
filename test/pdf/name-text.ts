import { execFileSync } from 'node:child_process';
import { inflateSync } from 'node:zlib';
import { comparable } from '../helpers/world-names.js';
import { pdfText, withPdfFile } from './pdf-helpers.js';

// A name read back from a certificate PDF as typed.

/** The fonts pdffonts lists, without their subset tags. */
export function pdfFonts(pdf: Buffer): string[] {
  const out = withPdfFile(pdf, (file) => execFileSync('pdffonts', [file], { encoding: 'utf8' }));
  return out
    .trim()
    .split('\n')
    .slice(2)
    .map((row) => row.split(/\s+/)[0]!.replace(/^[A-Z]{6}\+/, ''));
}

/** The /ActualText strings of the content streams, decoded. */
export function actualTexts(pdf: Buffer): string[] {
  const raw = pdf.toString('latin1');
  const out: string[] = [];
  for (const m of raw.matchAll(/stream\n/g)) {
    const start = m.index + m[0].length;
    let content: string;
    try {
      content = inflateSync(pdf.subarray(start, raw.indexOf('endstream', start))).toString('latin1');
    } catch {
      continue;
    }
    for (const a of content.matchAll(/\/ActualText <FEFF([0-9a-f]*)>/g)) {
      out.push(Buffer.from(a[1]!, 'hex').swap16().toString('utf16le'));
    }
  }
  return out;
}

/**
 * The name read back as typed: with pdftotext, or for a Nastaliq name, whose glyphs sit on a
 * slanting baseline that pdftotext splits into lines, from the /ActualText its run carries
 * (pdftotext reads it too, but lays its characters out left to right and then reverses them as
 * right-to-left text: poppler's limitation, not the file's).
 */
export function readsBack(pdf: Buffer, name: string): boolean {
  if (pdfFonts(pdf).some((f) => f.startsWith('NotoNastaliqUrdu')))
    // Its runs (digits make one of their own) are drawn left to right: read right to left.
    return actualTexts(pdf).reverse().map(comparable).join('') === comparable(name);
  return comparable(pdfText(pdf)).includes(comparable(name));
}
