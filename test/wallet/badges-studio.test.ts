import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason } from '../helpers/browser.js';
import { png } from '../helpers/hostile-files.js';
import { startDashboard, type DashboardEnv } from '../dashboard/support.js';
import { openStudio } from '../dashboard/studio-support.js';

const skip = browserSkipReason();

// The studio's Badge section in real Chromium (issue 31): in the Settings panel, the default seal
// shown first; a hostile SVG refused with the reason said and nothing changed; a PNG uploaded,
// previewed and stored at once (no Save); "Remove badge image" back to the seal. No CSP violation.

const templateIdOf = (page: Page) => /templates\/([0-9a-f-]{36})\/edit/.exec(page.url())![1]!;

// The preview image's natural size once it has loaded (0 when it failed).
async function previewSize(page: Page): Promise<{ width: number; src: string }> {
  await page.waitForFunction(() => {
    const img = document.getElementById('studio-badge-preview') as HTMLImageElement;
    return img.complete;
  });
  return page.evaluate(() => {
    const img = document.getElementById('studio-badge-preview') as HTMLImageElement;
    return { width: img.naturalWidth, src: img.src };
  });
}

describe('the studio: Badge in the Settings panel (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('upload a PNG badge, see it, refuse a hostile SVG, remove it', async () => {
    const { user, page, problems, close } = await openStudio(env, 'Course completion');
    const { badgeImages } = env.t.deps.services;
    const id = templateIdOf(page);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const section = page.getByRole('region', { name: 'Badge' });
    assert.equal(await section.isVisible(), true);
    // The default seal: an SVG of 512 px drawn from the design.
    assert.equal((await previewSize(page)).width, 512);
    const remove = page.getByRole('button', { name: 'Remove badge image' });
    assert.equal(await remove.isDisabled(), true);

    const picker = page.getByLabel('Badge image (PNG or SVG)');
    await picker.setInputFiles({
      name: 'evil.svg',
      mimeType: 'image/svg+xml',
      buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>'),
    });
    await page.waitForSelector('#studio-badge[data-outcome=refused]');
    assert.match(
      (await page.textContent('#studio-badge-status')) ?? '',
      /Not changed: .*event attribute \(onload on <svg>\)/,
    );
    assert.equal(await badgeImages.read(user.tenant.accountId, id), undefined);

    await picker.setInputFiles({
      name: 'badge.png',
      mimeType: 'image/png',
      buffer: png({ width: 40, height: 40 }),
    });
    await page.waitForSelector('#studio-badge[data-outcome=saved]');
    assert.match((await page.textContent('#studio-badge-status')) ?? '', /Badge image saved \(PNG\)/);
    assert.equal((await badgeImages.read(user.tenant.accountId, id))?.mediaType, 'image/png');
    await page.waitForFunction(() =>
      (document.getElementById('studio-badge-preview') as HTMLImageElement).src.includes('?t='),
    );
    assert.equal((await previewSize(page)).width, 40);
    assert.equal(await remove.isDisabled(), false);
    // Nothing of the design changed: no unsaved edits.
    assert.equal(await page.getAttribute('#studio', 'data-unsaved'), null);

    await remove.click();
    await page.waitForSelector('#studio-badge[data-outcome=removed]');
    assert.equal(await badgeImages.read(user.tenant.accountId, id), undefined);
    assert.equal((await previewSize(page)).width, 512);
    // The refusal's 422 is the only error Chromium reports.
    assert.deepEqual(
      problems.filter((p) => !/status of 422 .*\/badge$/.test(p)),
      [],
    );
    await close();
  });
});
