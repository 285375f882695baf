import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { bundledFace, bundledFacePath } from '../../src/pdf/font-catalog.js';
import { pdfText, pdfWords } from '../pdf/pdf-helpers.js';
import { browserSkipReason } from '../helpers/browser.js';
import { PHONE, shot, startDashboard, type DashboardEnv } from './support.js';
import { designOf, openStudio, rendered } from './studio-support.js';

const skip = browserSkipReason();

// The design studio in real Chromium (issue 18): from a gallery design, drag the name 100 pt to the
// right, change its size and colour, add a field, save, publish, issue through the API with an
// Arabic name and read the PDF back. pdf.js draws the service's PDF; the CSP holds throughout.

// The non-zero bytes of every Flate stream, inflated: where the content streams say their colours.
function contentStreams(pdf: Buffer): string {
  const text = pdf.toString('latin1');
  let out = '';
  for (const m of text.matchAll(/stream\r?\n/g)) {
    const start = m.index + m[0].length;
    const end = text.indexOf('endstream', start);
    try {
      out += inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      // not a Flate stream (an image, a font's raw bytes)
    }
  }
  return out;
}

describe('dashboard: the design studio (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('drag, size, colour, a new field; save, publish, issue an Arabic name: the PDF has it all where it was put', async () => {
    const { user, page, problems, close } = await openStudio(env, 'Course completion');
    const start = await designOf(page);
    const nameIndex = start.elements.findIndex((e) => e.text === '{{recipient.name}}');
    const name = page.locator(`[data-testid=design-element][data-element-index="${nameIndex}"]`);
    const canvas = (await page.locator('[data-testid=design-canvas]').boundingBox())!;
    const scale = canvas.width / start.page.width;
    const box = (await name.boundingBox())!;
    const from = { x: box.x + box.width / 2, y: box.y + box.height / 2 };

    // Drag 100 pt to the right.
    await rendered(page, async () => {
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(from.x + 50 * scale, from.y, { steps: 5 });
      await page.mouse.move(from.x + 100 * scale, from.y, { steps: 5 });
      await page.mouse.up();
    });
    const dragged = (await designOf(page)).elements[nameIndex]!;
    assert.ok(Math.abs(dragged.x - (start.elements[nameIndex]!.x + 100)) <= 1, `x ${dragged.x}`);
    assert.equal(dragged.y, start.elements[nameIndex]!.y);

    // Size and colour in the properties panel of the selected element.
    await rendered(page, async () => {
      await page.getByLabel('Size (pt)').fill('30');
      await page.keyboard.press('Tab');
    });
    await rendered(page, () => page.getByLabel('Colour', { exact: true }).fill('#c0392b'));

    // Undo and redo the colour.
    await rendered(page, () => page.getByRole('button', { name: 'Undo' }).click());
    assert.equal((await designOf(page)).elements[nameIndex]!.color, '#111827');
    await rendered(page, () => page.getByRole('button', { name: 'Redo' }).click());
    assert.equal((await designOf(page)).elements[nameIndex]!.color, '#C0392B');

    // A field, and a text that prints it.
    await page.getByRole('button', { name: 'Add field' }).click();
    const n = start.fields.length + 1;
    await page.getByLabel(`Key of field ${n}`).fill('grade');
    await page.keyboard.press('Tab');
    await page.getByLabel(`Label of field ${n}`).fill('Grade');
    await page.keyboard.press('Tab');
    await page.getByRole('button', { name: 'Add text' }).click();
    await rendered(page, async () => {
      await page.getByLabel('Text', { exact: true }).fill('Grade: {{data.grade}}');
      await page.keyboard.press('Tab');
    });
    await rendered(page, () => page.getByLabel('Grade', { exact: true }).fill('Summa cum laude'));
    await shot(page, 'studio-editor-desktop');

    await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Save' }).click()]);
    assert.match((await page.textContent('.notice')) ?? '', /Saved as version 2/);
    await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Publish' }).click()]);
    assert.match((await page.textContent('.notice')) ?? '', /Published/);
    const templateId = /templates\/([0-9a-f-]{36})\/edit/.exec(page.url())![1]!;

    // Issue through the API.
    const res = await env.t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: user.tenant.auth,
      payload: {
        templateId,
        recipient: {
          name: 'مريم الحسيني',
          email: 'maryam@example.com',
          data: { course: 'Safe Lifting', grade: 'Excellent' },
        },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const pdf = await env.t.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${res.json().data.id}/pdf`,
      headers: user.tenant.auth,
    });
    const bytes = pdf.rawPayload;
    assert.match(pdfText(bytes), /Grade: Excellent/);
    const arabic = pdfWords(bytes).filter((w) => /[\u0600-\u06FF]/.test(w.text));
    assert.ok(arabic.length > 0);
    const xMin = Math.min(...arabic.map((w) => w.xMin));
    const xMax = Math.max(...arabic.map((w) => w.xMax));
    const saved = (await env.t.deps.services.templates.working(user.tenant.accountId, templateId)).design;
    const el = saved.elements[nameIndex] as { x: number; y: number; width: number; size: number };
    // Centred in its box: the name's middle is the box's middle, 100 pt right of where it was.
    assert.ok(
      Math.abs((xMin + xMax) / 2 - (el.x + el.width / 2)) <= 2,
      `${xMin}..${xMax} vs ${el.x}+${el.width}/2`,
    );
    assert.ok(Math.abs(el.x + el.width / 2 - (121 + 300 + 100)) <= 1);
    // The baseline is where the line box put it (y + ascent of serif-bold x size): inside the
    // Arabic words' boxes (poppler's boxes use the Noto font's own ascent), and exactly under the
    // top of a Latin name issued from the same template.
    const baseline = el.y + 0.939 * 30;
    assert.ok(
      arabic.every((w) => w.yMin < baseline && w.yMax > baseline),
      JSON.stringify(arabic),
    );
    const latin = await env.t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: user.tenant.auth,
      payload: {
        templateId,
        recipient: { name: 'Maryam Husseini', email: 'm@example.com', data: { course: 'X' } },
      },
    });
    const latinPdf = await env.t.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${latin.json().data.id}/pdf`,
      headers: user.tenant.auth,
    });
    const maryam = pdfWords(latinPdf.rawPayload).find((w) => w.text === 'Maryam')!;
    assert.ok(Math.abs(maryam.yMin - el.y) <= 2, `${maryam.yMin} vs ${el.y}`);
    // #C0392B as the fill colour of the text.
    assert.match(contentStreams(bytes), /0\.75\d* 0\.22\d* 0\.1[67]\d* rg/);

    // No error and no CSP violation in the editor (the list's framed PDFs are Chromium's viewer's).
    assert.deepEqual(problems, []);
    await page.goto(`${env.base}/dashboard/templates`);
    await page.setViewportSize(PHONE);
    await shot(page, 'studio-templates-phone');
    await close();
  });

  it('keyboard: arrows nudge (Shift: 10 pt), Ctrl+Z and Ctrl+Shift+Z undo and redo, Delete removes; uploads', async () => {
    const { page, problems, close } = await openStudio(env, 'Minimal modern');
    const start = await designOf(page);
    const first = page.locator('[data-testid=design-element][data-element-index="1"]');
    await first.focus();
    await rendered(page, () => page.keyboard.press('Shift+ArrowRight'));
    await rendered(page, () => page.keyboard.press('ArrowDown'));
    let now = (await designOf(page)).elements[1]!;
    assert.deepEqual([now.x, now.y], [start.elements[1]!.x + 10, start.elements[1]!.y + 1]);
    await page.locator('[data-testid=design-element][data-element-index="1"]').focus();
    await rendered(page, () => page.keyboard.press('Control+z'));
    now = (await designOf(page)).elements[1]!;
    assert.deepEqual([now.x, now.y], [start.elements[1]!.x + 10, start.elements[1]!.y]);
    await page.locator('[data-testid=design-element][data-element-index="1"]').focus();
    await rendered(page, () => page.keyboard.press('Control+Shift+z'));
    assert.equal((await designOf(page)).elements[1]!.y, start.elements[1]!.y + 1);
    await page.locator('[data-testid=design-element][data-element-index="1"]').focus();
    await rendered(page, () => page.keyboard.press('Delete'));
    assert.equal((await designOf(page)).elements.length, start.elements.length - 1);
    // Uploads: a PNG becomes an image element; an SVG named .png is refused with a message.
    const image = new PNG({ width: 40, height: 20 });
    image.data.fill(120);
    const count = (await designOf(page)).elements.length;
    await rendered(page, () =>
      page.setInputFiles('input[data-upload=image]', {
        name: 'logo.png',
        mimeType: 'image/png',
        buffer: PNG.sync.write(image),
      }),
    );
    const added = (await designOf(page)).elements.at(-1) as unknown as {
      type: string;
      width: number;
      height: number;
    };
    // At its proportions (2:1), at most a third of the page wide (where it lands:
    // studio-signatories.test.ts and studio-placement.test.ts).
    assert.equal(added.type, 'image');
    assert.ok(Math.abs(added.width / added.height - 2) < 0.01, JSON.stringify(added));
    assert.ok(added.width <= (await designOf(page)).page.width / 3);
    // Replace the image; a background image, then remove it again.
    const other = new PNG({ width: 10, height: 10 });
    other.data.fill(30);
    const otherPng = PNG.sync.write(other);
    await rendered(page, () =>
      page
        .getByLabel('Replace image')
        .setInputFiles({ name: 'b.png', mimeType: 'image/png', buffer: otherPng }),
    );
    const replaced = (await designOf(page)).elements.at(-1) as unknown as { src: string };
    assert.equal(replaced.src, `data:image/png;base64,${otherPng.toString('base64')}`);
    await rendered(page, () =>
      page.setInputFiles('input[data-upload=background]', {
        name: 'bg.png',
        mimeType: 'image/png',
        buffer: otherPng,
      }),
    );
    const withBackground = (await designOf(page)) as unknown as { background: { image?: string } };
    assert.match(withBackground.background.image ?? '', /^data:image\/png;base64,/);
    await rendered(page, () => page.getByRole('button', { name: 'Remove background image' }).click());
    assert.equal(
      ((await designOf(page)) as unknown as { background: { image?: string } }).background.image,
      undefined,
    );
    // Fonts are named after the family and weight they say they have: a regular and a bold of one
    // family are one family in two weights.
    for (const [face, file] of [
      ['dejavu-serif', 'Regular.ttf'],
      ['dejavu-serif-bold', 'Bold.ttf'],
    ]) {
      await rendered(page, () =>
        page.setInputFiles('input[data-upload=font]', {
          name: file!,
          mimeType: 'font/ttf',
          buffer: readFileSync(bundledFacePath(bundledFace(face!))),
        }),
      );
    }
    const designFonts =
      ((await designOf(page)) as unknown as { fonts?: { name: string; fallback?: string }[] }).fonts ?? [];
    assert.deepEqual(
      designFonts.map((f) => [f.name, f.fallback]),
      [
        ['dejavu-serif', undefined],
        ['dejavu-serif-bold', 'sans-bold'],
      ],
    );
    await page.setInputFiles('input[data-upload=image]', {
      name: 'drawing.png',
      mimeType: 'image/png',
      buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'),
    });
    await page.waitForSelector('[data-testid=design-canvas][data-upload=refused]');
    assert.match(
      (await page.textContent('#studio-status')) ?? '',
      /Not added: The file is not a PNG or JPEG image/,
    );
    assert.equal((await designOf(page)).elements.length, count + 1);
    await page.keyboard.press('Escape');
    // The element list is the design's outline.
    const outline = await page.locator('#studio-outline li').allTextContents();
    assert.equal(outline.length, start.elements.length);
    // The refused upload's 422, which Chromium logs; nothing else.
    assert.deepEqual(
      problems.map((p) => p.replace(/[0-9a-f-]{36}/, 'ID').replace(/:\d+\//, ':PORT/')),
      [
        'Failed to load resource: the server responded with a status of 422 (Unprocessable Entity) http://127.0.0.1:PORT/dashboard/templates/ID/uploads',
      ],
    );
    await close();
  });
});
