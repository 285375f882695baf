import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason } from '../helpers/browser.js';
import {
  createUser,
  signIn,
  startDashboard,
  type DashboardEnv,
  type DashboardUser,
} from '../dashboard/support.js';
import { formClient, signInWith } from '../dashboard/form-client.js';
import { turnOnTwoFactor } from '../dashboard/two-factor-support.js';
import { linkInMail } from '../team/support.js';
import { certificatesInEveryState } from './fixtures.js';
import { axeCheck, note, report, SIZES, type SizeName } from './support.js';

const skip = browserSkipReason();

// Issue 32, item 4: the sign-in pages and the dashboard's pages (the studio with each of its panels
// open) have no axe-core violations at the WCAG 2.2 A and AA tags, at phone and desktop sizes. The
// dashboard and its sign-in pages are in English only (`<html lang="en">`; only the public pages
// speak nine languages: public-pages.test.ts), so every page here is checked in English at both
// sizes. A page is a row of a table: a new page is one more row.

export interface Fixtures {
  certificateId: string;
  templateId: string;
  invitationPath: string;
  resetPath: string;
  /** A user with two-factor on: the password step leads to the code step. */
  twoFactorUser: DashboardUser;
}

export interface DashboardPage {
  name: string;
  path: (f: Fixtures) => string;
  /** What to do on the page before it is checked (open a panel, select an element). */
  prepare?: (page: Page) => Promise<void>;
}

// Pages for someone signed out.
export const SIGNED_OUT_PAGES: DashboardPage[] = [
  { name: 'sign-in', path: () => '/dashboard' },
  { name: 'forgot password', path: () => '/dashboard/forgot-password' },
  { name: 'reset password', path: (f) => f.resetPath },
  { name: 'invitation', path: (f) => f.invitationPath },
  { name: 'single sign-on', path: () => '/dashboard/sso' },
  { name: 'operator console sign-in', path: () => '/admin' },
];

// The code step of a sign-in with two-factor on, reached by the password step in the browser.
async function checkCodeStep(env: DashboardEnv, page: Page, user: DashboardUser) {
  await page.goto(`${env.base}/dashboard`);
  await page.fill('input[name=email]', user.email);
  await page.fill('input[name=password]', user.password);
  await Promise.all([
    page.waitForURL(`${env.base}/dashboard/sign-in/code`),
    page.click('button[type=submit]'),
  ]);
  return axeCheck(page);
}

const studio = (f: Fixtures) => `/dashboard/templates/${f.templateId}/edit`;
const studioReady = async (page: Page) => {
  await page.waitForSelector('[data-testid=design-canvas][data-state=ready]');
};
const press = async (page: Page, name: string) => {
  await studioReady(page);
  await page.getByRole('button', { name, exact: true }).first().click();
};

// Pages for a signed-in owner.
export const SIGNED_IN_PAGES: DashboardPage[] = [
  { name: 'home', path: () => '/dashboard' },
  { name: 'certificates', path: () => '/dashboard/certificates' },
  { name: 'a certificate', path: (f) => `/dashboard/certificates/${f.certificateId}` },
  { name: 'issue form', path: (f) => `/dashboard/certificates/new?templateId=${f.templateId}` },
  { name: 'upload a CSV', path: () => '/dashboard/certificates/upload' },
  { name: 'templates', path: () => '/dashboard/templates' },
  { name: 'new template (gallery)', path: () => '/dashboard/templates/new' },
  { name: 'template history', path: (f) => `/dashboard/templates/${f.templateId}/history` },
  { name: 'studio', path: studio, prepare: studioReady },
  { name: 'studio: Settings', path: studio, prepare: (page) => press(page, 'Settings') },
  {
    name: 'studio: a text selected',
    path: studio,
    prepare: async (page) => {
      await studioReady(page);
      await page.locator('#studio-outline button').first().click();
    },
  },
  { name: 'studio: a line added', path: studio, prepare: (page) => press(page, 'Add line') },
  { name: 'studio: a signatory added', path: studio, prepare: (page) => press(page, 'Add signatory') },
  { name: 'studio: a table added', path: studio, prepare: (page) => press(page, 'Add table') },
  {
    name: 'studio: Edit as JSON',
    path: studio,
    prepare: async (page) => {
      await studioReady(page);
      await page.locator('summary', { hasText: 'Edit as JSON' }).click();
    },
  },
  { name: 'imports', path: () => '/dashboard/imports' },
  { name: 'settings', path: () => '/dashboard/settings' },
  { name: 'profile', path: () => '/dashboard/settings/profile' },
  { name: 'organisation', path: () => '/dashboard/settings/organisation' },
  { name: 'team', path: () => '/dashboard/settings/team' },
  { name: 'API keys', path: () => '/dashboard/settings/api-keys' },
  { name: 'sign-in settings', path: () => '/dashboard/settings/sign-in' },
  { name: 'sharing', path: () => '/dashboard/settings/sharing' },
  { name: 'audit log', path: () => '/dashboard/settings/audit' },
];

// The link of a mail that may still be on its way (the .eml is written after the page answers).
async function mailed(link: () => Promise<string>): Promise<string> {
  for (let i = 0; ; i++) {
    try {
      return await link();
    } catch (err) {
      if (i >= 100) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function fixtures(env: DashboardEnv, user: DashboardUser): Promise<Fixtures> {
  const codes = await certificatesInEveryState(env, user);
  const invited = `invited-${process.pid}-${Date.now()}@academy.test`;
  await env.t.deps.services.team.invite(
    user.tenant.accountId,
    { actor: { type: 'system', id: null, label: null }, role: 'owner' },
    { email: invited, role: 'issuer' },
  );
  // A second user asks for a new password (the form, as a person would); the link is in the .eml.
  const other = await createUser(env);
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${env.base}/dashboard/forgot-password`);
  await page.fill('input[name=email]', other.email);
  await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
  await context.close();
  const dataDir = env.t.deps.config.dataDir;
  const twoFactorUser = await createUser(env);
  const client = formClient(env.t, '10.32.0.1');
  await signInWith(client, twoFactorUser.email, twoFactorUser.password);
  // The server's own clock: codes are computed for now.
  await turnOnTwoFactor(client, { now: new Date(), move: () => undefined });
  return {
    twoFactorUser,
    certificateId: codes.validId,
    templateId: user.tenant.templateId,
    invitationPath: await linkInMail(dataDir, invited),
    resetPath: await mailed(() => linkInMail(dataDir, other.email, '/dashboard/reset-password/')),
  };
}

describe(
  'accessibility: the sign-in and dashboard pages pass axe-core (WCAG 2.2 A and AA) (Chromium)',
  { skip },
  () => {
    let env: DashboardEnv;
    let user: DashboardUser;
    let f: Fixtures;
    before(async () => {
      env = await startDashboard({ RATE_LIMIT_MAX: '100000' });
      user = await createUser(env);
      f = await fixtures(env, user);
    });
    after(async () => {
      await env?.close();
    });

    for (const size of Object.keys(SIZES) as SizeName[]) {
      it(`every sign-in and dashboard page, ${size} (${SIZES[size].width}x${SIZES[size].height})`, async () => {
        const phone = size === 'phone';
        const context = await env.browser.newContext({
          viewport: SIZES[size],
          hasTouch: phone,
          isMobile: phone,
        });
        const page = await context.newPage();
        const found = new Map<string, string[]>();
        const check = async (p: DashboardPage) => {
          const response = await page.goto(`${env.base}${p.path(f)}`, { waitUntil: 'load' });
          assert.equal(response?.status(), 200, p.name);
          await p.prepare?.(page);
          const result = await axeCheck(page, { targetSizeExempt: '.design-element' });
          note(found, p.name, size, result.violations);
        };
        try {
          for (const p of SIGNED_OUT_PAGES) await check(p);
          await signIn(env, page, user);
          for (const p of SIGNED_IN_PAGES) await check(p);
          await context.clearCookies();
          note(
            found,
            'two-factor code step',
            size,
            (await checkCodeStep(env, page, f.twoFactorUser)).violations,
          );
        } finally {
          await context.close();
        }
        const lines = report(found);
        assert.equal(lines.length, 0, `${lines.length} violations:\n${lines.join('\n')}`);
      });
    }
  },
);
