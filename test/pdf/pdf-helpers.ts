import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Design } from '../../src/pdf/design.schema.js';
import type { RenderOutcome, RenderValues } from '../../src/pdf/pdf-renderer.js';

export function loadDesign(name: string): Design {
  // Compiled tests live in dist/test/pdf: the examples are three levels up.
  const url = new URL(`../../../examples/designs/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as Design;
}

export function values(overrides: Partial<RenderValues> = {}): RenderValues {
  return {
    recipientName: 'Ada Lovelace',
    issuedAt: '2026-11-21T09:30:00.000Z',
    uniqueCode: '7K3M9Q2XRB4D8F1H',
    verificationUrl: 'https://certs.example.com/verify/7K3M9Q2XRB4D8F1H',
    data: { course: 'Analytical Engines 101', hours: 12 },
    ...overrides,
  };
}

export function pdfOf(outcome: RenderOutcome | undefined): Buffer {
  if (!outcome?.ok) throw new Error(`expected a PDF, got ${JSON.stringify(outcome)}`);
  return outcome.pdf;
}

/** Runs a poppler tool on the PDF (written to a temporary file) and returns its output file or stdout. */
export function withPdfFile<T>(pdf: Buffer, use: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'certsvc-pdf-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    return use(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function pdfText(pdf: Buffer): string {
  return withPdfFile(pdf, (file) =>
    execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }),
  );
}

export interface Word {
  text: string;
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
}

/** Words with their boxes, in points from the top-left of the page (pdftotext -bbox). */
export function pdfWords(pdf: Buffer): Word[] {
  const html = withPdfFile(pdf, (file) =>
    execFileSync('pdftotext', ['-bbox', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }),
  );
  const words: Word[] = [];
  const pattern = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g;
  for (const m of html.matchAll(pattern)) {
    words.push({
      xMin: Number(m[1]),
      yMin: Number(m[2]),
      xMax: Number(m[3]),
      yMax: Number(m[4]),
      text: unescapeHtml(m[5] ?? ''),
    });
  }
  return words;
}

function unescapeHtml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
