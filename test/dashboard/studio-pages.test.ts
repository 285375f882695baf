import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { cleanPdfTools, tempFile } from '../credentials/pdf-tools.js';
import { browserSkipReason } from '../helpers/browser.js';
import { shot, startDashboard, type DashboardEnv } from './support.js';
import { designOf, openStudio, rendered } from './studio-support.js';

const skip = browserSkipReason();

// "Add page", the page switcher and "Add table" in the studio (issue 30, item 10) in real
// Chromium: a statement of attainment on page 2, saved, published and issued with 40 units.

const WIDE = { width: 1440, height: 900 };

interface PagesJson {
  pages?: number;
  fields: { key: string; label: string; type?: string }[];
  elements: {
    type: string;
    page?: number;
    field?: string;
    x: number;
    width?: number;
    columns?: { key: string; label: string; width: number }[];
  }[];
}

const pagesOf = async (page: Page) => (await designOf(page)) as unknown as PagesJson;
const pixels = (page: Page) =>
  page.locator('canvas.design-pdf').evaluate((c) => (c as HTMLCanvasElement).toDataURL());
const templateIdOf = (page: Page) => /templates\/([0-9a-f-]{36})\/edit/.exec(page.url())![1]!;
const pressed = (page: Page, name: string) =>
  page.getByRole('button', { name, exact: true }).getAttribute('aria-pressed');

function pdfPages(pdf: Buffer): number {
  const info = execFileSync('pdfinfo', [tempFile(pdf)], { encoding: 'utf8' });
  return Number(/^Pages:\s+(\d+)$/m.exec(info)?.[1]);
}

describe('dashboard: pages and the table in the design studio (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
    cleanPdfTools();
  });

  it('"Add table" adds page 2, a list field and a table; shown, saved, published, issued with 40 units onto 3 pages', async () => {
    const { user, page, problems, close } = await openStudio(env, 'Course completion', WIDE);
    const start = await pagesOf(page);
    assert.equal(start.pages, undefined);
    assert.equal(await page.getByRole('button', { name: 'Page 2', exact: true }).isVisible(), false);
    const page1 = await pixels(page);

    await rendered(page, () => page.getByRole('button', { name: 'Add table' }).click());
    const added = await pagesOf(page);
    assert.equal(added.pages, 2);
    assert.deepEqual(added.fields.at(-1), { key: 'units', label: 'Units', required: false, type: 'list' });
    const table = added.elements.at(-1)!;
    assert.equal(table.type, 'table');
    assert.equal(table.page, 2);
    assert.equal(table.field, 'units');
    assert.deepEqual(
      table.columns!.map((c) => c.label),
      ['Unit', 'Hours', 'Grade'],
    );
    assert.ok(table.columns!.reduce((s, c) => s + c.width, 0) <= table.width!);
    // Page 2 is shown: its drawing, and only its elements' boxes (the table's).
    assert.equal(await pressed(page, 'Page 2'), 'true');
    assert.equal(await pressed(page, 'Page 1'), 'false');
    assert.notEqual(await pixels(page), page1);
    const visible = page.locator('[data-testid=design-element]:visible');
    assert.equal(await visible.count(), 1);
    assert.equal(await visible.getAttribute('data-element-index'), String(added.elements.length - 1));
    assert.match((await visible.getAttribute('aria-label')) ?? '', /Table/);
    assert.equal(await page.getByRole('button', { name: 'Add page' }).isDisabled(), true);
    // The table's properties; the list field shown as such, its sample rows not typed in.
    assert.equal(await page.getByLabel('List field').inputValue(), 'units');
    assert.equal(await page.getByLabel('Label of column 1').inputValue(), 'Unit');
    assert.equal(await page.getByLabel(`Type of field ${added.fields.length}`).inputValue(), 'list');
    assert.equal(await page.locator('#sample-units').count(), 0);
    assert.match((await page.locator('[data-sample-list=units]').textContent()) ?? '', /three sample rows/);
    // The element list says each element's page.
    assert.match((await page.locator('#studio-outline li').last().textContent()) ?? '', /Table.*\(page 2\)/);
    assert.match((await page.locator('#studio-outline li').first().textContent()) ?? '', /\(page 1\)/);
    await page.mouse.move(0, 0);
    await page
      .locator('[data-testid=design-canvas]')
      .screenshot({ path: '.tmp/screenshots/studio-page2-canvas-1440.png' });
    await shot(page, 'studio-page2-1440');

    // A column relabelled (one undo step), then page 1 shown again.
    await rendered(page, async () => {
      await page.getByLabel('Label of column 3').fill('Result');
      await page.keyboard.press('Tab');
    });
    assert.equal((await pagesOf(page)).elements.at(-1)!.columns![2]!.label, 'Result');
    await rendered(page, () => page.getByRole('button', { name: 'Page 1', exact: true }).click());
    assert.equal(await pressed(page, 'Page 1'), 'true');
    assert.equal(await pixels(page), page1);
    assert.equal(await page.locator('[data-testid=design-element]:visible').count(), start.elements.length);

    await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Save' }).click()]);
    assert.match((await page.textContent('.notice')) ?? '', /Saved as version 2/);
    await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Publish' }).click()]);
    assert.match((await page.textContent('.notice')) ?? '', /Published/);
    const templateId = templateIdOf(page);
    const saved = (await env.t.deps.services.templates.working(user.tenant.accountId, templateId))
      .design as unknown as PagesJson;
    assert.equal(saved.pages, 2);
    assert.equal(saved.fields.find((f) => f.key === 'units')?.type, 'list');
    assert.equal(saved.elements.filter((e) => e.type === 'table' && e.page === 2).length, 1);

    const units = Array.from({ length: 40 }, (_, i) => ({
      name: `Unit${i + 1} Manual handling`,
      hours: 100 + i,
      grade: `Merit${i + 1}`,
    }));
    const res = await env.t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: user.tenant.auth,
      payload: {
        templateId,
        recipient: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          data: { course: 'Safe Lifting', units },
        },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const pdfRes = await env.t.app.inject({
      url: `/api/v1/certificates/${(res.json().data as { id: string }).id}/pdf`,
      headers: user.tenant.auth,
    });
    assert.equal(pdfRes.statusCode, 200);
    const pdf = pdfRes.rawPayload;
    assert.equal(pdfPages(pdf), 3);
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', tempFile(pdf), '-'], { encoding: 'utf8' });
    for (const u of units) {
      assert.ok(text.includes(u.name), `${u.name} in the PDF`);
      assert.ok(text.includes(String(u.hours)), `${u.hours} in the PDF`);
      assert.ok(text.includes(u.grade), `${u.grade} in the PDF`);
    }
    assert.match(text, /Result/);
    assert.deepEqual(problems, []);
    await close();
  });

  it('Undo of "Add table" restores the design; "Add page", an element added on page 2, "Remove page 2" asks and removes it', async () => {
    const { page, problems, close } = await openStudio(env, 'Course completion', WIDE);
    const start = await designOf(page);
    await rendered(page, () => page.getByRole('button', { name: 'Add table' }).click());
    assert.equal((await pagesOf(page)).pages, 2);
    await rendered(page, () => page.getByRole('button', { name: 'Undo' }).click());
    assert.deepEqual(await designOf(page), start);
    assert.equal(await page.getByRole('button', { name: 'Page 2', exact: true }).isVisible(), false);
    assert.equal(await page.getByRole('button', { name: 'Add page' }).isDisabled(), false);

    await rendered(page, () => page.getByRole('button', { name: 'Add page' }).click());
    assert.equal((await pagesOf(page)).pages, 2);
    assert.equal(await pressed(page, 'Page 2'), 'true');
    assert.equal(await page.locator('[data-testid=design-element]:visible').count(), 0);
    await rendered(page, () => page.getByRole('button', { name: 'Add text' }).click());
    const withText = await pagesOf(page);
    assert.equal(withText.elements.at(-1)!.page, 2);
    assert.equal(await page.locator('[data-testid=design-element]:visible').count(), 1);

    // Declined: nothing changes; accepted: page 2 and its element go, one undo step brings them back.
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'Remove page 2' }).click();
    assert.match(asked, /Remove page 2 and the element on it/);
    assert.deepEqual(await pagesOf(page), withText);
    page.once('dialog', (d) => void d.accept());
    await rendered(page, () => page.getByRole('button', { name: 'Remove page 2' }).click());
    assert.deepEqual(await designOf(page), start);
    assert.equal(await page.getByRole('button', { name: 'Page 2', exact: true }).isVisible(), false);
    assert.equal(await page.getByRole('button', { name: 'Remove page 2' }).isVisible(), false);
    await rendered(page, () => page.getByRole('button', { name: 'Undo' }).click());
    assert.deepEqual(await pagesOf(page), withText);
    assert.equal(await pressed(page, 'Page 1'), 'true');
    assert.deepEqual(problems, []);
    await close();
  });
});
