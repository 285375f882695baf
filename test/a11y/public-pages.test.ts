import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LANGUAGES, type Language } from '../../src/platform/i18n/i18n.js';
import { browserSkipReason } from '../helpers/browser.js';
import { createUser, startDashboard, type DashboardEnv } from '../dashboard/support.js';
import { certificatesInEveryState, type Codes } from './fixtures.js';
import { axeCheck, note, report, SIZES, type SizeName } from './support.js';

const skip = browserSkipReason();

// Issue 32, item 4: the public pages have no axe-core violations at the WCAG 2.2 A and AA tags, in
// all nine languages, at phone and desktop sizes. One browser, one context per size, pages in
// sequence. A page is a row of PUBLIC_PAGES: a new public page (the claim page, ...) is one more row.

export interface PublicPage {
  name: string;
  /** The path, without ?lang=. */
  path: (codes: Codes) => string;
  /** Whether the page speaks the reader's language (?lang=); else it is checked in English only. */
  languages: boolean;
}

export const PUBLIC_PAGES: PublicPage[] = [
  { name: 'verification: valid', path: (c) => `/verify/${c.valid}`, languages: true },
  { name: 'verification: revoked', path: (c) => `/verify/${c.revoked}`, languages: true },
  { name: 'verification: expired', path: (c) => `/verify/${c.expired}`, languages: true },
  { name: 'verification: superseded', path: (c) => `/verify/${c.superseded}`, languages: true },
  { name: 'verification: not found', path: () => '/verify/ZZZZZZZZZZZZZZZZ', languages: true },
  { name: 'front door', path: () => '/', languages: true },
  { name: 'code box', path: () => '/verify/', languages: true },
  { name: 'code box: not a code', path: () => '/verify/?code=hello', languages: true },
  { name: 'wallet claim page', path: (c) => `/claim/${c.claimToken}`, languages: true },
  {
    name: 'wallet claim page: unknown link',
    path: (c) => `/claim/${c.claimToken.slice(0, -1)}${c.claimToken.endsWith('A') ? 'B' : 'A'}`,
    languages: true,
  },
  { name: 'my certificates: the form', path: () => '/my', languages: false },
];

// Every language at phone size, where longer words and the other direction strain the layout most;
// at desktop size English and Arabic (one page of each direction), unless A11Y_ALL=1 asks for all
// nine there too (CI's time: each axe run takes about 2 s).
const languagesAt = (size: SizeName): readonly Language[] =>
  size === 'phone' || process.env.A11Y_ALL === '1' ? LANGUAGES : (['en', 'ar'] as const);

describe(
  'accessibility: the public pages pass axe-core (WCAG 2.2 A and AA) in nine languages (Chromium)',
  { skip },
  () => {
    let env: DashboardEnv;
    let codes: Codes;
    before(async () => {
      env = await startDashboard({ RATE_LIMIT_MAX: '100000' });
      codes = await certificatesInEveryState(env, await createUser(env));
    });
    after(async () => {
      await env?.close();
    });

    for (const size of Object.keys(SIZES) as SizeName[]) {
      it(`every public page, every language, ${size} (${SIZES[size].width}x${SIZES[size].height})`, async () => {
        const context = await env.browser.newContext({ viewport: SIZES[size] });
        const page = await context.newPage();
        const found = new Map<string, string[]>();
        let checked = 0;
        let targetSizeRan = false;
        try {
          for (const p of PUBLIC_PAGES) {
            for (const lang of p.languages ? languagesAt(size) : (['en'] as const)) {
              const path = p.path(codes);
              const url = `${env.base}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`;
              const response = await page.goto(url, { waitUntil: 'load' });
              assert.ok(response && response.status() < 500, url);
              if (p.languages) assert.equal(await page.getAttribute('html', 'lang'), lang, url);
              const result = await axeCheck(page);
              targetSizeRan ||= result.ran.includes('target-size');
              note(found, p.name, lang, result.violations);
              checked++;
            }
          }
        } finally {
          await context.close();
        }
        assert.ok(targetSizeRan, 'axe ran the target-size rule (WCAG 2.5.8)');
        const lines = report(found);
        assert.equal(lines.length, 0, `${lines.length} violations:\n${lines.join('\n')}`);
        assert.equal(
          checked,
          PUBLIC_PAGES.reduce((n, p) => n + (p.languages ? languagesAt(size).length : 1), 0),
        );
      });
    }
  },
);
