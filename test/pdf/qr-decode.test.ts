import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { createPdfRenderer, type PdfRenderer, type RenderTemplate } from '../../src/pdf/pdf-renderer.js';
import { worldNames } from '../helpers/world-names.js';
import { loadDesign, pdfOf, values, withPdfFile } from './pdf-helpers.js';

// The QR code is encoded the cheap way (one byte-mode segment, a fixed mask: see qr-code.ts). Proof
// that it still works, by a decoder we did not write: 1,000 certificates from the real renderer,
// rasterised by poppler at 150 dpi, each code read back by jsqr, which must give exactly the URL.
// To keep this within a minute, each design's PDFs are joined into one file (pdfunite, which copies
// the pages' content streams as they are) and only the code's square of each page is rasterised.

const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ??
  jsQRModule) as typeof jsQRModule.default;
const run = promisify(execFile);

const DPI = 150;
const PER_DESIGN = 500;
const PER_FILE = 250;
const BASE_URLS = [
  'https://certs.example.com',
  'http://localhost:3000',
  'https://verify.university-of-somewhere.example.edu/certificates',
  'https://c.example',
];
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// A small deterministic generator, so that a failing code can be made again.
function codes(seed: number, count: number): string[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state >>> 27; // 5 bits
  };
  return Array.from({ length: count }, () => Array.from({ length: 16 }, () => CROCKFORD[next()]).join(''));
}

describe('QR codes of 1,000 certificates', () => {
  let renderer: PdfRenderer;
  let dir: string;
  before(() => {
    renderer = createPdfRenderer({ threads: 2 });
    dir = mkdtempSync(join(tmpdir(), 'certsvc-qr-'));
  });
  after(async () => {
    await renderer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('decode with jsqr at 150 dpi to exactly the verification URL', { timeout: 180_000 }, async (t) => {
    const started = performance.now();
    const designs: RenderTemplate[] = ['course-completion', 'event-attendance'].map((name) => ({
      id: name,
      version: '1',
      design: loadDesign(name),
    }));
    const jobs: { pdfs: string[]; urls: string[]; crop: number[]; prefix: string }[] = [];
    for (const [d, template] of designs.entries()) {
      const qr = template.design.elements.find((e) => e.type === 'qr');
      assert.ok(qr?.type === 'qr');
      const urls = codes(17 + d, PER_DESIGN).map(
        (code, i) => `${BASE_URLS[i % BASE_URLS.length]}/verify/${code}`,
      );
      const outcomes = await renderer.render(
        template,
        urls.map((verificationUrl, i) =>
          values({
            recipientName: worldNames[i % worldNames.length]!.name,
            uniqueCode: verificationUrl.slice(-16),
            verificationUrl,
            data: { course: 'Analytical Engines 101', hours: i, event: 'Conference', date: '3 March 2026' },
          }),
        ),
      );
      const px = (pt: number): number => Math.round((pt * DPI) / 72);
      const margin = 8;
      const crop = [px(qr.x) - margin, px(qr.y) - margin, px(qr.size) + 2 * margin, px(qr.size) + 2 * margin];
      for (let start = 0; start < PER_DESIGN; start += PER_FILE) {
        const pdfs = outcomes.slice(start, start + PER_FILE).map((o, i) => {
          const file = join(dir, `one-${template.id}-${start + i}.pdf`);
          writeFileSync(file, pdfOf(o));
          return file;
        });
        jobs.push({
          pdfs,
          urls: urls.slice(start, start + PER_FILE),
          crop,
          prefix: `${template.id}-${start}`,
        });
      }
    }
    const rendered = performance.now();

    // Two at a time: the machine has two cores.
    const rasterise = async (job: (typeof jobs)[number]): Promise<void> => {
      const joined = join(dir, `joined-${job.prefix}.pdf`);
      const [x, y, w, h] = job.crop.map(String) as [string, string, string, string];
      try {
        await run('pdfunite', [...job.pdfs, joined]);
        await run('pdftoppm', [
          '-r',
          String(DPI),
          '-png',
          '-x',
          x,
          '-y',
          y,
          '-W',
          w,
          '-H',
          h,
          joined,
          join(dir, job.prefix),
        ]);
      } catch (err) {
        throw new Error(`${job.prefix}: ${(err as { stderr?: string }).stderr ?? String(err)}`);
      }
    };
    const queue = [...jobs];
    await Promise.all(
      [0, 1].map(async () => {
        for (let job = queue.shift(); job; job = queue.shift()) await rasterise(job);
      }),
    );
    const rasterised = performance.now();

    const files = readdirSync(dir);
    let decoded = 0;
    const wrong: string[] = [];
    for (const job of jobs) {
      // pdftoppm names pages <prefix>-<n>.png, n from 1, zero-padded to the width of the page count.
      const pages = files.filter((f) => f.startsWith(`${job.prefix}-`) && f.endsWith('.png')).sort();
      assert.equal(pages.length, job.urls.length, `${job.prefix}: pages rasterised`);
      pages.forEach((page, i) => {
        const png = PNG.sync.read(readFileSync(join(dir, page)));
        const result = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
        if (result?.data === job.urls[i]) decoded++;
        else wrong.push(`${page}: ${JSON.stringify(result?.data)} for ${job.urls[i]}`);
      });
    }
    const done = performance.now();
    const s = (a: number, b: number): string => `${((b - a) / 1000).toFixed(1)} s`;
    t.diagnostic(
      `${decoded} of ${PER_DESIGN * designs.length} decoded to their URL; render ${s(started, rendered)}, ` +
        `pdfunite + pdftoppm ${s(rendered, rasterised)}, jsqr ${s(rasterised, done)}`,
    );
    assert.deepEqual(wrong.slice(0, 10), []);
    assert.equal(decoded, PER_DESIGN * designs.length);
  });
});

// The code is one 1-bit image mask (a stencil, inline in the page's content): at the smallest size
// the design format allows (36 pt) and with the longest base URL above, it still reads back.
describe('the QR code at its smallest size', () => {
  let renderer: PdfRenderer;
  before(() => (renderer = createPdfRenderer({ threads: 1 })));
  after(() => renderer.close());

  it('is drawn as an image mask and decodes with jsqr at 150 dpi', async () => {
    const design = loadDesign('course-completion');
    const qr = design.elements.find((e) => e.type === 'qr');
    assert.ok(qr?.type === 'qr');
    qr.size = 36;
    const url = `${BASE_URLS[2]}/verify/${codes(5, 1)[0]}`;
    const [outcome] = await renderer.render({ id: 'smallest-qr', version: '1', design }, [
      values({ verificationUrl: url, uniqueCode: url.slice(-16) }),
    ]);
    const { images, decoded } = withPdfFile(pdfOf(outcome), (file, dir) => {
      const list = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' });
      execFileSync('pdftoppm', ['-r', String(DPI), '-png', '-singlefile', file, join(dir, 'page')]);
      const png = PNG.sync.read(readFileSync(join(dir, 'page.png')));
      return { images: list, decoded: jsQR(new Uint8ClampedArray(png.data), png.width, png.height) };
    });
    const stencils = images.split('\n').filter((line) => / stencil /.test(line));
    assert.equal(stencils.length, 1, images);
    assert.equal(decoded?.data, url);
  });
});
