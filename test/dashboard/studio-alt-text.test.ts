import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason } from '../helpers/browser.js';
import { startDashboard, type DashboardEnv } from './support.js';
import { designOf, openStudio } from './studio-support.js';

const skip = browserSkipReason();

// The alternative text of an image and of the QR code (decisions 23), set in the studio's property
// panel and saved with the design: the tagged PDF's /Alt of their Figure elements.

const element = (page: Page, i: number) =>
  page.locator(`[data-testid=design-element][data-element-index="${i}"]`);

describe('dashboard: alternative text in the design studio (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('sets, saves and clears the alternative text of the logo and of the QR code', async () => {
    const { user, page, problems, close } = await openStudio(env, 'Event attendance');
    const start = await designOf(page);
    assert.equal(start.elements[2]!.type, 'image');
    const qrIndex = start.elements.findIndex((e) => e.type === 'qr');
    // The design the editor holds, once the change is committed (on leaving the field).
    const alt = async (i: number) => {
      await page.waitForFunction(() => document.activeElement?.tagName !== 'INPUT');
      return ((await designOf(page)).elements[i] as { alt?: string }).alt;
    };

    await element(page, 2).click();
    await page.getByLabel('Alternative text', { exact: true }).fill('  Academy logo  ');
    await page.getByLabel('Alternative text', { exact: true }).blur();
    assert.equal(await alt(2), 'Academy logo');
    await element(page, qrIndex).click();
    await page.getByLabel('Alternative text', { exact: true }).fill('Scan to verify this certificate');
    await page.getByLabel('Alternative text', { exact: true }).blur();
    assert.equal(await alt(qrIndex), 'Scan to verify this certificate');

    await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Save' }).click()]);
    const templateId = /templates\/([0-9a-f-]{36})\/edit/.exec(page.url())![1]!;
    const saved = (await env.t.deps.services.templates.working(user.tenant.accountId, templateId)).design;
    assert.equal((saved.elements[2] as { alt?: string }).alt, 'Academy logo');
    assert.equal((saved.elements[qrIndex] as { alt?: string }).alt, 'Scan to verify this certificate');

    // Emptied: no alternative text (the image is decoration again).
    await element(page, 2).click();
    await page.getByLabel('Alternative text', { exact: true }).fill('');
    await page.getByLabel('Alternative text', { exact: true }).blur();
    assert.equal(await alt(2), undefined);
    assert.deepEqual(problems, []);
    await close();
  });
});
