import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { withPdfFile } from '../pdf/pdf-helpers.js';
import { browserSkipReason } from '../helpers/browser.js';
import { PHONE, SHOTS, shot, startDashboard, type DashboardEnv } from './support.js';
import { designOf, openStudio, rendered } from './studio-support.js';

const skip = browserSkipReason();

// The design studio's editing in real Chromium (issue 18): resize handles on corners and sides,
// font weight as its own control, text properties that apply while typing (one undo step per
// burst), and the editor at phone size.

const WIDE = { width: 1440, height: 900 };

const element = (page: Page, i: number) =>
  page.locator(`[data-testid=design-element][data-element-index="${i}"]`);

async function pointsPerPixel(page: Page) {
  const canvas = (await page.locator('[data-testid=design-canvas]').boundingBox())!;
  return (await designOf(page)).page.width / canvas.width;
}

// Drags the selected element's handle by (dx, dy) points.
async function dragHandle(page: Page, i: number, handle: string, dx: number, dy: number) {
  const perPx = await pointsPerPixel(page);
  const box = (await element(page, i).locator(`[data-handle=${handle}]`).boundingBox())!;
  const from = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await rendered(page, async () => {
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(from.x + dx / perPx / 2, from.y + dy / perPx / 2, { steps: 4 });
    await page.mouse.move(from.x + dx / perPx, from.y + dy / perPx, { steps: 4 });
    await page.mouse.up();
  });
}

const near = (actual: number | undefined, expected: number, what: string) =>
  assert.ok(Math.abs((actual ?? NaN) - expected) <= 1, `${what}: ${actual}, expected ${expected}`);

describe('dashboard: editing in the design studio (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('resize handles: corners and sides resize from the opposite side; QR codes stay square; text by width; keyboard; one undo step; saved', async () => {
    const { user, page, problems, close } = await openStudio(env, 'Event attendance');
    const start = await designOf(page);
    // The logo image (48, 39, 72 x 72): eight handles once selected.
    assert.equal(start.elements[2]!.type, 'image');
    await element(page, 2).click();
    assert.deepEqual(
      await element(page, 2)
        .locator('.design-handle')
        .evaluateAll((hs) => hs.map((h) => (h as HTMLElement).dataset.handle)),
      ['nw', 'n', 'ne', 'w', 'e', 'sw', 's', 'se'],
    );
    // The top-left corner 20 pt left and 10 pt up: the bottom-right corner stays put.
    await dragHandle(page, 2, 'nw', -20, -10);
    let image = (await designOf(page)).elements[2]!;
    near(image.x, 28, 'x');
    near(image.y, 29, 'y');
    near(image.width, 92, 'width');
    near(image.height, 82, 'height');
    // One undo step for the whole drag; redo brings it back.
    await rendered(page, () => page.getByRole('button', { name: 'Undo' }).click());
    image = (await designOf(page)).elements[2]!;
    assert.deepEqual([image.x, image.y, image.width, image.height], [48, 39, 72, 72]);
    assert.equal(await page.getByRole('button', { name: 'Undo' }).isDisabled(), true);
    await rendered(page, () => page.getByRole('button', { name: 'Redo' }).click());
    // The right edge: width only.
    await element(page, 2).click();
    await dragHandle(page, 2, 'e', 30, 15);
    image = (await designOf(page)).elements[2]!;
    near(image.x, 28, 'x after e');
    near(image.width, 122, 'width after e');
    near(image.height, 82, 'height after e');
    // The keyboard: Alt+Shift+ArrowRight 10 pt wider, Alt+ArrowDown 1 pt taller.
    await element(page, 2).focus();
    await rendered(page, () => page.keyboard.press('Alt+Shift+ArrowRight'));
    await element(page, 2).focus();
    await rendered(page, () => page.keyboard.press('Alt+ArrowDown'));
    image = (await designOf(page)).elements[2]!;
    near(image.width, 132, 'width after Alt+Shift+ArrowRight');
    near(image.height, 83, 'height after Alt+ArrowDown');
    near(image.x, 28, 'x after the keyboard');

    // The QR code: four corners, and it stays square, anchored at the opposite corner.
    const qrIndex = start.elements.findIndex((e) => e.type === 'qr');
    const qr0 = start.elements[qrIndex]!;
    await element(page, qrIndex).click();
    assert.equal(await element(page, qrIndex).locator('.design-handle').count(), 4);
    await dragHandle(page, qrIndex, 'nw', -30, -10);
    const qr = (await designOf(page)).elements[qrIndex]!;
    near(qr.size, qr0.size! + 30, 'QR size');
    near(qr.x, qr0.x - 30, 'QR x');
    near(qr.y, qr0.y - 30, 'QR y');

    // A text box: its width only, from either side.
    await element(page, 3).click();
    assert.equal(await element(page, 3).locator('.design-handle').count(), 2);
    const text0 = start.elements[3]!;
    await dragHandle(page, 3, 'w', 40, 20);
    const text = (await designOf(page)).elements[3]!;
    near(text.x, text0.x + 40, 'text x');
    near(text.width, text0.width! - 40, 'text width');
    assert.equal(text.y, text0.y);

    await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Save' }).click()]);
    assert.match((await page.textContent('.notice')) ?? '', /Saved as version 2/);
    const templateId = /templates\/([0-9a-f-]{36})\/edit/.exec(page.url())![1]!;
    const saved = (await env.t.deps.services.templates.working(user.tenant.accountId, templateId)).design;
    const savedImage = saved.elements[2] as { x: number; y: number; width: number; height: number };
    near(savedImage.x, 28, 'saved x');
    near(savedImage.y, 29, 'saved y');
    near(savedImage.width, 132, 'saved width');
    near(savedImage.height, 83, 'saved height');
    near((saved.elements[qrIndex] as { size: number }).size, qr0.size! + 30, 'saved QR size');
    assert.deepEqual(problems, []);
    await close();
  });

  it('font weight: a select of the weights the family has; Bold is saved and drawn with the bold face', async () => {
    const { page, problems, close } = await openStudio(env, 'Minimal modern');
    // Element 1 is sans-bold: the family Sans, the weight Bold.
    await element(page, 1).click();
    assert.equal(await page.getByLabel('Font', { exact: true }).inputValue(), 'sans');
    assert.equal(await page.getByLabel('Weight').inputValue(), 'sans-bold');
    // Element 4 is sans: Serif keeps its weight (Regular), then Bold.
    await element(page, 4).click();
    assert.equal((await designOf(page)).elements[4]!.font, 'sans');
    await rendered(page, () => page.getByLabel('Font', { exact: true }).selectOption('serif'));
    assert.equal((await designOf(page)).elements[4]!.font, 'serif');
    assert.deepEqual(await page.getByLabel('Weight').locator('option').allTextContents(), [
      'Regular',
      'Bold',
    ]);
    await rendered(page, () => page.getByLabel('Weight').selectOption({ label: 'Bold' }));
    assert.equal((await designOf(page)).elements[4]!.font, 'serif-bold');
    assert.equal(await page.getByLabel('Weight').inputValue(), 'serif-bold');

    await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Save' }).click()]);
    assert.equal((await designOf(page)).elements[4]!.font, 'serif-bold');
    // The saved design, rendered: Minimal modern has no serif text but this one, in bold.
    const res = await page.request.get(page.url().replace(/\/edit$/, '/preview.pdf?latest=1'));
    assert.equal(res.status(), 200);
    const fonts = withPdfFile(await res.body(), (file) =>
      execFileSync('pdffonts', [file], { encoding: 'utf8' }),
    );
    assert.match(fonts, /\+DejaVuSerif-Bold\s/);
    assert.doesNotMatch(fonts, /\+DejaVuSerif\s/);
    assert.deepEqual(problems, []);
    await close();
  });

  it('text properties apply while typing (debounced), the preview follows, and one undo step undoes the burst', async () => {
    const { page, problems, close } = await openStudio(env, 'Minimal modern');
    // A burst also ends after 2 s without a change: the page's clock stands still (its timers run),
    // so a slow machine between the two typings below cannot split the burst in two.
    await page.clock.setFixedTime(new Date());
    assert.equal(
      await page.evaluate(async () => {
        const t = Date.now();
        await new Promise((r) => setTimeout(r, 20));
        return Date.now() - t;
      }),
      0,
    );
    const original = (await designOf(page)).elements[1]!.text;
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/preview.pdf')) {
        sent.push(
          (JSON.parse(r.postData() ?? '{}') as { design: { elements: { text?: string }[] } }).design
            .elements[1]!.text ?? '',
        );
      }
    });
    await element(page, 1).click();
    const field = page.getByLabel('Text', { exact: true });
    await field.click();
    await page.keyboard.press('Control+a');
    const pixels = () =>
      page.locator('canvas.design-pdf').evaluate((c) => (c as HTMLCanvasElement).toDataURL());
    const before = await pixels();
    // Typed, not blurred: the preview is drawn with the text so far.
    await rendered(page, () => page.keyboard.type('Hello', { delay: 25 }));
    await page.waitForFunction(() =>
      document.querySelector<HTMLTextAreaElement>('#design-json')!.value.includes('"Hello"'),
    );
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'prop-text');
    assert.notEqual(await pixels(), before);
    await rendered(page, () => page.keyboard.type(' world', { delay: 25 }));
    await page.waitForFunction(() =>
      document.querySelector<HTMLTextAreaElement>('#design-json')!.value.includes('"Hello world"'),
    );
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'prop-text');
    assert.equal((await designOf(page)).elements[1]!.text, 'Hello world');
    assert.ok(sent.includes('Hello') && sent.includes('Hello world'), JSON.stringify(sent));
    // Debounced: not one render per keystroke.
    assert.ok(sent.length < 'Hello world'.length, JSON.stringify(sent));

    // One Ctrl+Z (on the page, outside the input) undoes the whole burst, and nothing more is left.
    await element(page, 1).focus();
    await rendered(page, () => page.keyboard.press('Control+z'));
    assert.equal((await designOf(page)).elements[1]!.text, original);
    assert.equal(await page.getByRole('button', { name: 'Undo' }).isDisabled(), true);
    await element(page, 1).focus();
    await rendered(page, () => page.keyboard.press('Control+Shift+z'));
    assert.equal((await designOf(page)).elements[1]!.text, 'Hello world');

    // The size applies while typing too.
    await page.getByLabel('Size (pt)').fill('22');
    await page.waitForFunction(() =>
      document.querySelector<HTMLTextAreaElement>('#design-json')!.value.includes('"size": 22'),
    );
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'prop-size-pt-');
    assert.deepEqual(problems, []);
    await close();
  });

  it('phone size: the page scales to the width, the panels stack below it, no sideways scroll; screenshots', async () => {
    const wide = await openStudio(env, 'Course completion', WIDE);
    await element(wide.page, 2).click();
    await shot(wide.page, 'studio-editor-1440');
    assert.deepEqual(wide.problems, []);
    await wide.close();

    const { page, problems, close } = await openStudio(env, 'Course completion', PHONE);
    const fits = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
    }));
    assert.ok(fits.scroll <= fits.inner, JSON.stringify(fits));
    const canvas = (await page.locator('[data-testid=design-canvas]').boundingBox())!;
    assert.ok(canvas.x >= 0 && canvas.x + canvas.width <= PHONE.width, JSON.stringify(canvas));
    assert.ok(canvas.width >= PHONE.width * 0.8, `the page is ${canvas.width} px wide`);
    // Drawn at that width: the canvas's aspect is the page's.
    const design = await designOf(page);
    assert.ok(Math.abs(canvas.height / canvas.width - design.page.height / design.page.width) < 0.02);
    // Selecting by a tap shows the handles; the properties panel is below the page, not beside it.
    // (The logo is 60 pt, 26 px here: room for its corners' handles only.)
    await element(page, 2).tap();
    assert.equal(await element(page, 2).locator('.design-handle').count(), 4);
    // (Measured together: the tap may have scrolled the page.)
    const stage = (await page.locator('[data-testid=design-canvas]').boundingBox())!;
    const props = (await page.locator('.studio-props').boundingBox())!;
    assert.ok(
      props.y >= stage.y + stage.height,
      `panel at ${props.y}, page ends at ${stage.y + stage.height}`,
    );
    assert.ok(props.x + props.width <= PHONE.width);
    // The selected element's properties come first under the page, before the element list, and
    // their inputs are big enough to tap.
    const outline = (await page.locator('.studio-outline').boundingBox())!;
    assert.ok(props.y < outline.y, `panel at ${props.y}, element list at ${outline.y}`);
    const heights = await page
      .locator('#studio-props input[type=number]')
      .evaluateAll((inputs) => inputs.map((i) => i.getBoundingClientRect().height));
    assert.ok(heights.length >= 4 && heights.every((h) => h >= 32), JSON.stringify(heights));
    // Still usable: a tap-drag of a corner handle resizes.
    await dragHandle(page, 2, 'se', 20, 20);
    const image = (await designOf(page)).elements[2]!;
    near(image.width, 80, 'width after a drag on the phone');
    const after = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    assert.equal(after, true);
    await shot(page, 'studio-editor-phone');
    await page
      .locator('[data-testid=design-canvas]')
      .screenshot({ path: path.join(SHOTS, 'studio-editor-phone-page.png') });
    assert.deepEqual(problems, []);
    await close();
  });
});
