import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { createPdfRenderer, type PdfRenderer, type RenderTemplate } from '../../src/pdf/pdf-renderer.js';
import { loadDesign, pdfOf, pdfText, pdfWords, values, withPdfFile } from './pdf-helpers.js';

// jsqr is a UMD bundle: Node hands over the function itself, its typings describe { default }.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ??
  jsQRModule) as typeof jsQRModule.default;

const course: RenderTemplate = { id: 'course', version: '1', design: loadDesign('course-completion') };

describe('PDF renderer (worker pool)', () => {
  let renderer: PdfRenderer;
  before(() => {
    renderer = createPdfRenderer({ threads: 2 });
  });
  after(async () => {
    await renderer.close();
  });

  it('writes names with diacritics, Greek and Cyrillic, data values, date and code as text', async () => {
    const names = ['Zoë Ångström-Łukasiewicz', 'Αλέξανδρος Παπαδόπουλος', 'Анна Сергеевна Каренина'];
    const outcomes = await renderer.render(
      course,
      names.map((recipientName) =>
        values({ recipientName, data: { course: 'Cálculo Numérico ΙΙ', hours: 42.5 } }),
      ),
    );
    assert.equal(outcomes.length, 3);
    outcomes.forEach((outcome, i) => {
      const text = pdfText(pdfOf(outcome));
      assert.ok(text.includes(names[i] ?? '?'), `name ${names[i]} in:\n${text}`);
      assert.match(text, /Cálculo Numérico ΙΙ/);
      assert.match(text, /Hours of instruction: 42\.5/);
      assert.match(text, /Issued 21 November 2026/);
      assert.match(text, /7K3M9Q2XRB4D8F1H/);
      assert.match(text, /Certificate of Completion/);
    });
  });

  it('returns the sha256 of the exact bytes, a self-contained PDF with subset fonts only', async () => {
    const [outcome] = await renderer.render(course, [values()]);
    const pdf = pdfOf(outcome);
    assert.ok(outcome?.ok);
    assert.equal(outcome.sha256, createHash('sha256').update(pdf).digest('hex'));
    assert.equal(pdf.subarray(0, 8).toString('latin1'), '%PDF-1.7');
    // Every cross-reference entry points at its object.
    const raw = pdf.toString('latin1');
    const xrefAt = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(raw)?.[1]);
    const entries = raw.slice(xrefAt).split('\n').slice(3);
    const count = Number(raw.slice(xrefAt).split('\n')[1]?.split(' ')[1]);
    assert.ok(count > 10);
    for (let id = 1; id < count; id++) {
      const offset = Number(entries[id - 1]?.slice(0, 10));
      assert.equal(raw.slice(offset, offset + `${id} 0 obj`.length), `${id} 0 obj`, `object ${id}`);
    }
    assert.ok(pdf.length < 60_000, `PDF is ${pdf.length} bytes`);
    const fonts = withPdfFile(pdf, (file) => execFileSync('pdffonts', [file], { encoding: 'utf8' }));
    const rows = fonts.trim().split('\n').slice(2);
    assert.ok(rows.length >= 3);
    for (const row of rows) assert.match(row, /^[A-Z]{6}\+DejaVu\S* +CID TrueType +Identity-H +yes yes yes/);
  });

  it('renders the same values to the same bytes', async () => {
    const [a, b] = await renderer.render(course, [values(), values()]);
    assert.ok(a?.ok && b?.ok);
    assert.equal(a.sha256, b.sha256);
  });

  it('leaves out a text whose only value is missing, and draws numbers and booleans as text', async () => {
    const [missing, bool] = await renderer.render(course, [
      values({ data: { course: 'Logic' } }),
      values({ data: { course: 'Logic', hours: true } }),
    ]);
    // "Hours of instruction: {{data.hours}}" without hours: all its placeholders are empty, not drawn.
    assert.doesNotMatch(pdfText(pdfOf(missing)), /Hours of instruction/);
    assert.match(pdfText(pdfOf(bool)), /Hours of instruction: true/);
  });

  it('shrinks a very long name to fit its box, on one line', async () => {
    const element = course.design.elements[5];
    assert.ok(element?.type === 'text' && element.text === '{{recipient.name}}');
    const long = 'Maximiliana Wilhelmina Friederike Theodora von Hohenzollern-Sigmaringen-Ångström';
    const words = pdfWords(pdfOf((await renderer.render(course, [values({ recipientName: long })]))[0]));
    const nameWords = long.split(' ');
    const found = words.filter((w) => nameWords.includes(w.text));
    assert.equal(found.length, nameWords.length, JSON.stringify(words));
    for (const w of found) {
      assert.ok(w.xMin >= element.x - 0.5, `${w.text} starts at ${w.xMin}`);
      assert.ok(w.xMax <= element.x + element.width + 0.5, `${w.text} ends at ${w.xMax}`);
      assert.ok(Math.abs(w.yMin - (found[0]?.yMin ?? 0)) < 0.01, 'one line');
      assert.ok(w.yMax - w.yMin < (element.size ?? 14), 'font size was reduced');
    }
    const first = found[0];
    const last = found[found.length - 1];
    assert.ok(
      first && last && last.xMax - first.xMin > element.width * 0.97,
      'shrunk just enough to fill the box',
    );
  });

  it('centres a short name in its box', async () => {
    const element = course.design.elements[5];
    assert.ok(element?.type === 'text');
    const words = pdfWords(pdfOf((await renderer.render(course, [values({ recipientName: 'Ada' })]))[0]));
    const ada = words.find((w) => w.text === 'Ada');
    assert.ok(ada);
    const centre = (ada.xMin + ada.xMax) / 2;
    assert.ok(Math.abs(centre - (element.x + element.width / 2)) < 0.5, `centre at ${centre}`);
  });

  it('refuses names and data values the fonts cannot draw, with the path of the value', async () => {
    const outcomes = await renderer.render(course, [
      values({ recipientName: 'ኃይሌ ገብረሥላሴ' }),
      values({ recipientName: 'Ada 😀' }),
      values({ recipientName: 'Ada\u0007Lovelace' }),
      values({ data: { course: 'Course 🎓' } }),
      values({ recipientName: 'Ada\u202Eecalevol' }),
    ]);
    const issues = outcomes.map((o) => (o.ok ? undefined : o.issues));
    assert.deepEqual(
      issues[0]?.map((i) => i.path),
      [['name']],
    );
    assert.match(
      issues[0]?.[0]?.message ?? '',
      /^contains characters that cannot be rendered: "ኃ" \(U\+1283\)/,
    );
    assert.deepEqual(
      issues[1]?.map((i) => i.path),
      [['name']],
    );
    assert.match(issues[1]?.[0]?.message ?? '', /U\+1F600/);
    assert.deepEqual(
      issues[2]?.map((i) => i.path),
      [['name']],
    );
    assert.match(issues[2]?.[0]?.message ?? '', /U\+0007/);
    assert.deepEqual(
      issues[3]?.map((i) => i.path),
      [['data', 'course']],
    );
    assert.deepEqual(
      issues[4]?.map((i) => i.path),
      [['name']],
    );
  });

  it('refuses a verification URL too long for a QR code', async () => {
    const [outcome] = await renderer.render(course, [
      values({ verificationUrl: `https://x.test/${'a'.repeat(4000)}` }),
    ]);
    assert.deepEqual(outcome?.ok === false && outcome.issues.map((i) => i.path), [['verificationUrl']]);
  });

  it('refuses a missing required data value', async () => {
    const [outcome] = await renderer.render(course, [values({ data: { hours: 3 } })]);
    assert.deepEqual(outcome, { ok: false, issues: [{ path: ['data', 'course'], message: 'is required' }] });
  });

  it('keeps input order in a batch of 50 with bad items mixed in', async () => {
    const items = Array.from({ length: 50 }, (_, i) =>
      i % 7 === 3
        ? values({ recipientName: `Li 😀 ${i}` })
        : values({ recipientName: `Recipient Ørsted ${i}` }),
    );
    const outcomes = await renderer.render(course, items);
    assert.equal(outcomes.length, 50);
    outcomes.forEach((outcome, i) => {
      if (i % 7 === 3) {
        assert.equal(outcome.ok, false, `item ${i}`);
        assert.ok(!outcome.ok && outcome.issues[0]?.message.includes('"😀"'));
      } else {
        assert.match(pdfText(pdfOf(outcome)), new RegExp(`Recipient Ørsted ${i}\\n`), `item ${i}`);
      }
    });
  });

  it('draws a QR code that scans to the verification URL', async () => {
    const url = 'https://certs.example.com/verify/ZX8P4M2K9Q7R3T5V';
    const pdf = pdfOf((await renderer.render(course, [values({ verificationUrl: url })]))[0]);
    const decoded = withPdfFile(pdf, (file, dir) => {
      execFileSync('pdftoppm', ['-r', '100', '-png', '-singlefile', file, join(dir, 'page')]);
      const png = PNG.sync.read(readFileSync(join(dir, 'page.png')));
      return jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    });
    assert.equal(decoded?.data, url);
  });

  it('draws the glyphs of the embedded subsets (ink inside the name box)', async () => {
    const element = course.design.elements[5];
    assert.ok(element?.type === 'text');
    const box = { x: element.x, y: element.y, width: element.width, height: (element.size ?? 14) * 1.16 };
    const [named, blank] = await renderer.render(course, [
      values({ recipientName: 'Zoë Ångström Жж Ωω' }),
      values({ recipientName: '' }),
    ]);
    const ink = (pdf: Buffer): number =>
      withPdfFile(pdf, (file, dir) => {
        // 72 dpi: one pixel per point. Poppler reports broken fonts on stderr.
        const run = spawnSync('pdftoppm', ['-r', '72', '-png', '-singlefile', file, join(dir, 'p')], {
          encoding: 'utf8',
        });
        assert.equal(run.status, 0);
        assert.equal(run.stderr, '');
        const png = PNG.sync.read(readFileSync(join(dir, 'p.png')));
        let dark = 0;
        for (let y = Math.ceil(box.y); y < box.y + box.height; y++) {
          for (let x = Math.ceil(box.x); x < box.x + box.width; x++) {
            const at = 4 * (y * png.width + x);
            if ((png.data[at] ?? 255) + (png.data[at + 1] ?? 255) + (png.data[at + 2] ?? 255) < 300) dark++;
          }
        }
        return dark;
      });
    assert.ok(ink(pdfOf(named)) > 1000, 'name drawn');
    assert.equal(ink(pdfOf(blank)), 0);
  });

  it('embeds PNG images with transparency and JPEG images (background stretched to the page)', async () => {
    // A small JPEG made by poppler from one of our own pages.
    const jpeg = withPdfFile(pdfOf((await renderer.render(course, [values()]))[0]), (file, dir) => {
      execFileSync('pdftoppm', ['-r', '10', '-jpeg', '-singlefile', file, join(dir, 'bg')]);
      return readFileSync(join(dir, 'bg.jpg'));
    });
    const design = structuredClone(course.design);
    design.background = { image: `data:image/jpeg;base64,${jpeg.toString('base64')}` };
    const [outcome] = await renderer.render({ id: 'course-bg', version: '1', design }, [values()]);
    const list = withPdfFile(pdfOf(outcome), (file) =>
      execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }),
    );
    const rows = list
      .trim()
      .split('\n')
      .slice(2)
      .map((row) => row.trim().split(/\s+/));
    // page num type width height color comp bpc enc ... (the QR code is a stencil mask, qr-code.ts)
    assert.deepEqual(
      rows.map((r) => [r[2], r[3], r[4], r[5], r[8]]),
      [
        ['image', '117', '83', 'rgb', 'jpeg'],
        ['image', '96', '96', 'rgb', 'image'],
        ['smask', '96', '96', 'gray', 'image'],
        ['stencil', '33', '33', '-', 'image'],
      ],
    );
  });

  it('uses a new design when the template version changes', async () => {
    const changed = structuredClone(course.design);
    const title = changed.elements[3];
    assert.ok(title?.type === 'text');
    title.text = 'Certificate of Excellence';
    const [before, after_] = [
      await renderer.render(course, [values()]),
      await renderer.render({ ...course, version: '2', design: changed }, [values()]),
    ];
    assert.match(pdfText(pdfOf(before[0])), /Certificate of Completion/);
    assert.match(pdfText(pdfOf(after_[0])), /Certificate of Excellence/);
  });

  it('renders the second sample design', async () => {
    const event: RenderTemplate = { id: 'event', version: '1', design: loadDesign('event-attendance') };
    const [outcome] = await renderer.render(event, [
      values({
        recipientName: 'Ηλέκτρα Νικολάου',
        data: { event: 'Конференция 2026', date: '3 March 2026' },
      }),
    ]);
    const text = pdfText(pdfOf(outcome));
    assert.match(text, /Ηλέκτρα Νικολάου/);
    assert.match(text, /Конференция 2026/);
    assert.match(text, /https:\/\/certs\.example\.com\/verify\/7K3M9Q2XRB4D8F1H/);
  });
});

describe('PDF renderer lifecycle', () => {
  it('closes its worker threads and refuses work afterwards', async () => {
    const renderer = createPdfRenderer({ threads: 1 });
    assert.equal((await renderer.render(course, [values()]))[0]?.ok, true);
    assert.deepEqual(await renderer.render(course, []), []);
    await renderer.close();
    await renderer.close();
    await assert.rejects(renderer.render(course, [values()]), /closed/);
  });
});
