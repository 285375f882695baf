import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import type { Design } from '../../src/pdf/design.schema.js';
import { boxOf } from '../../src/browser/studio/geometry.js';
import { pdfWords } from '../pdf/pdf-helpers.js';
import { browserSkipReason } from '../helpers/browser.js';
import { shot, startDashboard, type DashboardEnv } from './support.js';
import { openStudio, rendered } from './studio-support.js';

const skip = browserSkipReason();

// Signatories, lines and where an uploaded image lands, in real Chromium (issue 30, items 2 and 3).

const WIDE = { width: 1440, height: 900 };

const designOf = async (page: Page) => JSON.parse(await page.inputValue('#design-json')) as Design;

async function designHas(page: Page, test: (d: Design) => boolean) {
  for (let i = 0; i < 100; i++) {
    if (test(await designOf(page))) return;
    await page.waitForTimeout(50);
  }
  const shown = JSON.stringify(await designOf(page), (k, v: unknown) =>
    typeof v === 'string' && v.startsWith('data:') ? v.slice(0, 30) : v,
  );
  assert.fail(`the design never got there: ${shown}`);
}

const overlap = (a: { x: number; y: number; w: number; h: number }, b: typeof a) =>
  Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) *
  Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));

describe(
  'dashboard: signatories, lines and image placement in the design studio (Chromium)',
  { skip },
  () => {
    let env: DashboardEnv;
    before(async () => {
      env = await startDashboard();
    });
    after(async () => {
      await env?.close();
    });

    it('a signatory with a signature image, a dashed line and an image; saved, published, issued: the PDF prints the signatory in its block', async () => {
      const { user, page, problems, close } = await openStudio(env, 'Course completion', WIDE);

      // A line: dashed, weight 2; its box on screen is thick enough to grab, handles at its ends.
      await rendered(page, () => page.getByRole('button', { name: 'Add line', exact: true }).click());
      await rendered(page, () => page.getByLabel('Dash', { exact: true }).selectOption('dashed'));
      await page.getByLabel('Weight (pt)', { exact: true }).fill('2');
      await designHas(page, (d) => {
        const e = d.elements.at(-1);
        return e?.type === 'line' && e.weight === 2 && e.dash === 'dashed';
      });
      const lineIndex = (await designOf(page)).elements.length - 1;
      const lineBox = page.locator(`[data-testid=design-element][data-element-index="${lineIndex}"]`);
      assert.match(
        (await lineBox.getAttribute('aria-label')) ?? '',
        new RegExp(`^${lineIndex + 1}\\. Line$`),
      );
      assert.ok(((await lineBox.boundingBox())?.height ?? 0) >= 9.5);
      const handles = await lineBox
        .locator('.design-handle')
        .evaluateAll((hs) => hs.map((h) => (h as HTMLElement).dataset.handle));
      assert.deepEqual(handles, ['w', 'e']);

      // A signatory: the button places its block near the bottom, over no text.
      // (The starting design has one already: Dr. Ada Lee's.)
      const before = (await designOf(page)).signatories?.length ?? 0;
      await rendered(page, () => page.getByRole('button', { name: 'Add signatory', exact: true }).click());
      const n = before + 1;
      await page.getByLabel(`Signatory ${n} name`, { exact: true }).fill('Dr. Grace Moss');
      await page.getByLabel(`Signatory ${n} title`, { exact: true }).fill('Head of Training');
      const signature = new PNG({ width: 60, height: 20 });
      signature.data.fill(40);
      await page
        .getByLabel(`Signatory ${n} signature image`, { exact: true })
        .setInputFiles({ name: 'sig.png', mimeType: 'image/png', buffer: PNG.sync.write(signature) });
      await designHas(
        page,
        (d) =>
          d.signatories?.[n - 1]?.name === 'Dr. Grace Moss' &&
          d.signatories[n - 1]?.title === 'Head of Training' &&
          (d.signatories[n - 1]?.signatureImage ?? '').startsWith('data:image/png;base64,'),
      );
      let design = await designOf(page);
      const blockIndex = design.elements.findIndex((e) => e.type === 'signatory' && e.index === n);
      const block = design.elements[blockIndex]!;
      assert.ok(block.type === 'signatory');
      const blockBox = boxOf(block);
      assert.ok(blockBox.y > design.page.height / 2, JSON.stringify(blockBox));
      assert.ok(blockBox.y + blockBox.h <= design.page.height);
      for (const e of design.elements)
        if (e.type === 'text') assert.equal(overlap(blockBox, boxOf(e)), 0, e.text);
      const blockLabel = page.locator(`[data-testid=design-element][data-element-index="${blockIndex}"]`);
      assert.equal(
        await blockLabel.getAttribute('aria-label'),
        `${blockIndex + 1}. Signatory: Dr. Grace Moss`,
      );

      // Removing the first signatory removes its block, and the new one's block follows its new
      // number; Undo brings both back.
      const signatoryBlocks = (d: Design) =>
        d.elements.flatMap((e) => (e.type === 'signatory' ? [`${e.index}@${e.x},${e.y}`] : []));
      const blocksBefore = signatoryBlocks(design);
      await page.getByRole('button', { name: 'Remove signatory 1', exact: true }).click();
      await designHas(
        page,
        (d) =>
          d.signatories?.[n - 2]?.name === 'Dr. Grace Moss' &&
          JSON.stringify(signatoryBlocks(d)) === JSON.stringify([`${n - 1}@${block.x},${block.y}`]),
      );
      await page.getByRole('button', { name: 'Undo', exact: true }).click();
      await designHas(page, (d) => JSON.stringify(signatoryBlocks(d)) === JSON.stringify(blocksBefore));

      // An uploaded image: at its proportions, inside the page, over no text element's box.
      const logo = new PNG({ width: 90, height: 30 });
      logo.data.fill(160);
      await rendered(page, () =>
        page.setInputFiles('input[data-upload=image]', {
          name: 'logo.png',
          mimeType: 'image/png',
          buffer: PNG.sync.write(logo),
        }),
      );
      // The render waited for may be the Undo's, still drawing when the file was chosen: wait for
      // the image itself in the design.
      await designHas(page, (d) => d.elements.at(-1)?.type === 'image');
      design = await designOf(page);
      const image = design.elements.at(-1)!;
      assert.equal(image.type, 'image');
      const imageBox = boxOf(image);
      assert.ok(Math.abs(imageBox.w / imageBox.h - 3) < 0.02, JSON.stringify(imageBox));
      assert.ok(imageBox.x >= 0 && imageBox.y >= 0, JSON.stringify(imageBox));
      assert.ok(
        imageBox.x + imageBox.w <= design.page.width && imageBox.y + imageBox.h <= design.page.height,
      );
      for (const e of design.elements)
        if (e.type === 'text') assert.equal(overlap(imageBox, boxOf(e)), 0, e.text);
      await shot(page, 'studio-signatories-1440');

      await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Save' }).click()]);
      assert.match((await page.textContent('.notice')) ?? '', /Saved as version 2/);
      await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Publish' }).click()]);
      assert.match((await page.textContent('.notice')) ?? '', /Published/);
      const templateId = /templates\/([0-9a-f-]{36})\/edit/.exec(page.url())![1]!;
      const saved = (await env.t.deps.services.templates.working(user.tenant.accountId, templateId))
        .design as unknown as Design;
      assert.equal(saved.signatories?.[n - 1]?.name, 'Dr. Grace Moss');
      assert.ok(saved.elements.some((e) => e.type === 'line' && e.dash === 'dashed' && e.weight === 2));

      const res = await env.t.app.inject({
        method: 'POST',
        url: '/api/v1/certificates',
        headers: user.tenant.auth,
        payload: {
          templateId,
          recipient: { name: 'Grace Hopper', email: 'grace@example.com', data: { course: 'Safe Lifting' } },
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      const pdf = await env.t.app.inject({
        url: `/api/v1/certificates/${res.json().data.id}/pdf`,
        headers: user.tenant.auth,
      });
      const words = pdfWords(pdf.rawPayload);
      const inBlock = (text: string) =>
        words.some(
          (w) =>
            w.text === text &&
            w.xMin >= blockBox.x - 1 &&
            w.xMax <= blockBox.x + blockBox.w + 1 &&
            w.yMin >= blockBox.y - 1 &&
            w.yMax <= blockBox.y + blockBox.h + 1,
        );
      for (const word of ['Grace', 'Moss', 'Head', 'Training'])
        assert.ok(
          inBlock(word),
          `${word} in ${JSON.stringify(blockBox)}: ${JSON.stringify(words.slice(-12))}`,
        );

      // At five signatories, Add signatory is disabled.
      await page.getByRole('button', { name: 'Add signatory', exact: true }).waitFor();
      for (let i = 0; i < 4; i++)
        await page.getByRole('button', { name: 'Add signatory', exact: true }).click();
      await designHas(page, (d) => d.signatories?.length === 5);
      assert.equal(await page.getByRole('button', { name: 'Add signatory', exact: true }).isDisabled(), true);
      assert.deepEqual(problems, []);
      await close();
    });
  },
);
