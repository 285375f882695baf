import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { pdfText } from '../pdf/pdf-helpers.js';
import { browserSkipReason } from '../helpers/browser.js';
import { PHONE, SHOTS, shot, startDashboard, type DashboardEnv } from './support.js';
import { designOf, openStudio, rendered } from './studio-support.js';

const skip = browserSkipReason();

// The studio's Settings panel and "Insert field" in real Chromium (issue 30, items 4 and 5): the
// template's settings without JSON, saved and used at issue; placeholders inserted and listed by name.

const WIDE = { width: 1440, height: 900 };

interface SettingsJson {
  name: string;
  description?: string | null;
  recipientDescription?: string;
  validity?: string;
  remindBeforeDays?: number[];
  renewalUrl?: string;
  locale?: string;
  emailOnIssue?: boolean;
  elements: { text?: string }[];
}

const settingsOf = async (page: Page) => (await designOf(page)) as unknown as SettingsJson;

// Waits until the design the editor holds (its JSON) passes `test`.
async function designHas(page: Page, test: (d: SettingsJson) => boolean) {
  for (let i = 0; i < 100; i++) {
    if (test(await settingsOf(page))) return;
    await page.waitForTimeout(50);
  }
  assert.fail(`the design never got there: ${JSON.stringify(await settingsOf(page)).slice(0, 600)}`);
}

const templateIdOf = (page: Page) => /templates\/([0-9a-f-]{36})\/edit/.exec(page.url())![1]!;

describe('dashboard: Settings and Insert field in the design studio (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('Settings without JSON: name, description for recipients, validity, reminders, language, email on issue; saved, published, used at issue', async () => {
    const { user, page, problems, close } = await openStudio(env, 'Course completion', WIDE);
    const settings = page.getByRole('button', { name: 'Settings', exact: true });
    assert.equal(await settings.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.locator('#studio-settings').isVisible(), false);
    await settings.click();
    assert.equal(await settings.getAttribute('aria-expanded'), 'true');
    assert.equal(await page.locator('#studio-settings').isVisible(), true);
    // What each description is for is said beside it.
    const forRecipients = page.getByLabel('Description for recipients');
    assert.match(
      (await page.locator(`#${await forRecipients.getAttribute('id')}-hint`).textContent()) ?? '',
      /achievement description, shown by wallets/,
    );
    const note = page.getByLabel('Internal note');
    assert.equal(
      await note.inputValue(),
      'A4 landscape certificate of completion for a course, with optional hours.',
    );
    assert.match(
      (await page.locator(`#${await note.getAttribute('id')}-hint`).textContent()) ?? '',
      /Internal/,
    );

    await page.getByLabel('Template name').fill('Safe Lifting Techniques');
    await forRecipients.fill('Completed 12 hours of safe lifting practice, assessed on site.');
    await designHas(
      page,
      (d) =>
        d.name === 'Safe Lifting Techniques' &&
        d.recipientDescription === 'Completed 12 hours of safe lifting practice, assessed on site.',
    );
    // Validity: "Does not expire" at first; a unit, then the number.
    assert.equal(await page.getByLabel('Validity unit').inputValue(), '');
    assert.equal(await page.getByLabel('Valid for').isDisabled(), true);
    await page.getByLabel('Validity unit').selectOption({ label: 'years' });
    await designHas(page, (d) => d.validity === 'P1Y');
    await page.getByLabel('Valid for').fill('2');
    await designHas(page, (d) => d.validity === 'P2Y');
    await page.getByLabel('Reminders (days before expiry)').fill('30, 7');
    await page.keyboard.press('Tab');
    await designHas(page, (d) => JSON.stringify(d.remindBeforeDays) === '[30,7]');

    // The language: the preview is drawn again, its dates in French.
    const languages = await page.getByLabel('Language').locator('option').allTextContents();
    assert.equal(languages.length, 9, JSON.stringify(languages));
    assert.ok(languages.includes('French (français)'), JSON.stringify(languages));
    const french = page.waitForResponse(
      (r) =>
        r.url().endsWith('/preview.pdf') &&
        r.request().method() === 'POST' &&
        (JSON.parse(r.request().postData() ?? '{}') as { design?: { locale?: string } }).design?.locale ===
          'fr',
    );
    await rendered(page, () => page.getByLabel('Language').selectOption('fr'));
    const today = new Intl.DateTimeFormat('fr', {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(new Date());
    assert.match(pdfText(await (await french).body()), new RegExp(`Issued ${today}`));

    // Email on issue: one undo step, and the panel follows undo and redo.
    const email = page.getByLabel('Email on issue');
    await email.check();
    await designHas(page, (d) => d.emailOnIssue === true);
    await page.getByRole('button', { name: 'Undo' }).click();
    await designHas(page, (d) => d.emailOnIssue === undefined && d.locale === 'fr');
    assert.equal(await page.getByLabel('Email on issue').isChecked(), false);
    await page.getByRole('button', { name: 'Redo' }).click();
    await designHas(page, (d) => d.emailOnIssue === true);
    assert.equal(await page.getByLabel('Email on issue').isChecked(), true);
    await shot(page, 'studio-settings-1440');

    await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Save' }).click()]);
    assert.match((await page.textContent('.notice')) ?? '', /Saved as version 2/);
    await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Publish' }).click()]);
    assert.match((await page.textContent('.notice')) ?? '', /Published/);
    // Opened again, the panel shows what was saved.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    assert.equal(await page.getByLabel('Template name').inputValue(), 'Safe Lifting Techniques');
    assert.equal(await page.getByLabel('Valid for').inputValue(), '2');
    assert.equal(await page.getByLabel('Validity unit').inputValue(), 'Y');
    assert.equal(await page.getByLabel('Reminders (days before expiry)').inputValue(), '30, 7');
    assert.equal(await page.getByLabel('Language').inputValue(), 'fr');

    const templateId = templateIdOf(page);
    const saved = (await env.t.deps.services.templates.working(user.tenant.accountId, templateId))
      .design as unknown as SettingsJson;
    assert.equal(saved.name, 'Safe Lifting Techniques');
    assert.equal(
      saved.recipientDescription,
      'Completed 12 hours of safe lifting practice, assessed on site.',
    );
    assert.equal(
      saved.description,
      'A4 landscape certificate of completion for a course, with optional hours.',
    );
    assert.equal(saved.validity, 'P2Y');
    assert.deepEqual(saved.remindBeforeDays, [30, 7]);
    assert.equal(saved.locale, 'fr');
    assert.equal(saved.emailOnIssue, true);
    const listed = await env.t.app.inject({
      url: `/api/v1/templates/${templateId}`,
      headers: user.tenant.auth,
    });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.equal(listed.json().data.name, 'Safe Lifting Techniques');

    // Issued through the API: the expiry is two years on.
    const res = await env.t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: user.tenant.auth,
      payload: {
        templateId,
        recipient: { name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Safe Lifting' } },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const issued = res.json().data as { issuedAt: string; expiresAt: string };
    const expected = new Date(issued.issuedAt);
    expected.setUTCFullYear(expected.getUTCFullYear() + 2);
    assert.equal(issued.expiresAt, expected.toISOString());
    // The credential's achievement says what Settings' "Description for recipients" says.
    const credential = await env.t.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${(res.json().data as { id: string }).id}/credential`,
      headers: user.tenant.auth,
    });
    assert.equal(credential.statusCode, 200, credential.body);
    const subject = credential.json().credentialSubject as { achievement: { description: string } };
    assert.equal(
      subject.achievement.description,
      'Completed 12 hours of safe lifting practice, assessed on site.',
    );
    assert.deepEqual(problems, []);
    await close();
  });

  it('a value that cannot be used is said beside its input and not applied, nor saved', async () => {
    const { user, page, problems, close } = await openStudio(env, 'Course completion', WIDE);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const url = page.getByLabel('Renewal URL');
    await url.fill('http://academy.example/renew');
    await page.keyboard.press('Tab');
    const message = page.locator(`#${await url.getAttribute('id')}-error`);
    assert.match((await message.textContent()) ?? '', /must be an https:\/\/ address/);
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    assert.equal((await settingsOf(page)).renewalUrl, undefined);
    assert.equal(await page.getByRole('button', { name: 'Undo' }).isDisabled(), true);

    // An empty name and a validity of 0 years: said, not applied.
    await page.getByLabel('Template name').fill('');
    await page.keyboard.press('Tab');
    assert.match((await page.locator('#prop-template-name-error').textContent()) ?? '', /needs a name/);
    await page.getByLabel('Validity unit').selectOption({ label: 'months' });
    await designHas(page, (d) => d.validity === 'P1M');
    await page.getByLabel('Valid for').fill('0');
    await page.keyboard.press('Tab');
    assert.match((await page.locator('#studio-validity-error').textContent()) ?? '', /at least 1/);
    await page.getByLabel('Template name').fill('Renewable course');
    await designHas(
      page,
      (d) => d.name === 'Renewable course' && d.validity === 'P1M' && d.renewalUrl === undefined,
    );
    assert.equal(await page.locator('#prop-template-name-error').textContent(), '');
    // The other changes leave the refused URL as typed, still said to be wrong.
    assert.equal(await url.inputValue(), 'http://academy.example/renew');
    assert.match((await message.textContent()) ?? '', /must be an https:\/\/ address/);
    await shot(page, 'studio-settings-error');

    await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('button', { name: 'Save' }).click()]);
    assert.match((await page.textContent('.notice')) ?? '', /Saved as version 2/);
    const saved = (await env.t.deps.services.templates.working(user.tenant.accountId, templateIdOf(page)))
      .design as unknown as SettingsJson;
    assert.equal(saved.name, 'Renewable course');
    assert.equal(saved.validity, 'P1M');
    assert.equal('renewalUrl' in saved, false);

    // An https:// address is taken.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByLabel('Renewal URL').fill('https://academy.example/renew');
    await page.keyboard.press('Tab');
    await designHas(page, (d) => d.renewalUrl === 'https://academy.example/renew');
    assert.equal(await page.locator('#prop-renewal-url-error').textContent(), '');
    assert.deepEqual(problems, []);
    await close();
  });

  it('Insert field: human labels; "Expiry date" goes in at the caret; the element list names placeholders', async () => {
    const { page, problems, close } = await openStudio(env, 'Course completion', WIDE);
    const outline = page.locator('#studio-outline button');
    // "Issued {{certificate.issuedAt}}" (element 11) and the name (element 5), by name.
    assert.equal(await outline.nth(11).textContent(), 'Text: Issued [Issue date]');
    assert.equal(await outline.nth(5).textContent(), 'Text: [Recipient name]');
    assert.equal(
      await page.locator('[data-testid=design-element][data-element-index="8"]').getAttribute('aria-label'),
      '9. Text: [Course title]',
    );

    // Chosen from the list with the keyboard (the list scrolls inside the sticky side column).
    await outline.nth(11).focus();
    await page.keyboard.press('Enter');
    const text = page.getByLabel('Text', { exact: true });
    await rendered(page, async () => {
      await text.fill('Valid until . Renew early.');
      await page.keyboard.press('Tab');
    });
    // The caret after "Valid until ".
    await text.focus();
    await text.evaluate((i) => (i as HTMLInputElement).setSelectionRange(12, 12));
    const button = page.getByRole('button', { name: 'Insert field' });
    await button.click();
    assert.equal(await button.getAttribute('aria-expanded'), 'true');
    assert.deepEqual(await page.getByRole('menuitem').allTextContents(), [
      'Recipient name',
      'Issue date',
      'Expiry date',
      'Certificate code',
      'Verification link',
      'Course title',
      'Hours of instruction',
      'Signatory 1: name',
      'Signatory 1: title',
    ]);
    await shot(page, 'studio-insert-field');
    await rendered(page, () => page.getByRole('menuitem', { name: 'Expiry date' }).click());
    const inserted = 'Valid until {{certificate.expiresAt}}. Renew early.';
    assert.equal((await settingsOf(page)).elements[11]!.text, inserted);
    assert.equal(await page.getByRole('menuitem').count(), 0);
    // The caret is after the placeholder, in the Text input.
    const caret = await page.evaluate(() => {
      const i = document.activeElement as HTMLInputElement;
      return { id: i.id, at: i.selectionStart };
    });
    assert.deepEqual(caret, { id: 'prop-text', at: 12 + '{{certificate.expiresAt}}'.length });
    assert.equal(await outline.nth(11).textContent(), 'Text: Valid until [Expiry date]. Renew early.');
    assert.equal(
      await page.locator('#prop-text-reads').textContent(),
      'Reads: Valid until [Expiry date]. Renew early.',
    );

    // The keyboard: Escape closes the list and gives the focus back to the button.
    await button.click();
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Issue date');
    await page.keyboard.press('Escape');
    assert.equal(await page.getByRole('menuitem').count(), 0);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Insert field');

    // One undo step takes the insertion back.
    await rendered(page, () => page.getByRole('button', { name: 'Undo' }).click());
    assert.equal((await settingsOf(page)).elements[11]!.text, 'Valid until . Renew early.');
    assert.deepEqual(problems, []);
    await close();
  });

  it('phone size: Settings and the Insert field list fit the screen; nothing scrolls sideways', async () => {
    const { page, problems, close } = await openStudio(env, 'Course completion', PHONE);
    const sideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    await page.getByRole('button', { name: 'Settings', exact: true }).tap();
    const panel = (await page.locator('#studio-settings').boundingBox())!;
    assert.ok(panel.x >= 0 && panel.x + panel.width <= PHONE.width, JSON.stringify(panel));
    assert.equal(await sideways(), true);
    await page.locator('#studio-settings').screenshot({ path: `${SHOTS}/studio-settings-phone.png` });
    await page.locator('[data-testid=design-element][data-element-index="12"]').tap();
    await page.getByRole('button', { name: 'Insert field' }).tap();
    const menu = (await page.getByRole('menu').boundingBox())!;
    assert.ok(menu.x >= 0 && menu.x + menu.width <= PHONE.width, JSON.stringify(menu));
    assert.equal(await sideways(), true);
    await shot(page, 'studio-insert-field-phone');
    assert.deepEqual(problems, []);
    await close();
  });
});
