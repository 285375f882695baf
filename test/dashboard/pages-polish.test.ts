import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { issueCertificate } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { formClient, signInWith } from './form-client.js';
import {
  createUser,
  DESKTOP,
  newPage,
  PHONE,
  shot,
  signIn,
  startDashboard,
  type DashboardEnv,
  type DashboardUser,
} from './support.js';

// Issue 33, item 4: every HTML page has an icon that loads (no /favicon.ico 404 on every page), and
// the small things a newcomer sees on the dashboard's pages: field labels on a certificate's page,
// the import's progress bar across its card with "Rows done" once, usage cards that keep their
// height, the studio's Elements list. Screenshots go to .tmp/screenshots/dashboard/polish-*.png
// (POLISH_SHOTS=before names them polish-before-*).

const TAG = process.env.POLISH_SHOTS ?? 'after';

function imgSources(csp: string): string[] {
  const directive = csp
    .split(';')
    .map((d) => d.trim().split(/\s+/))
    .find((d) => d[0] === 'img-src' || d[0] === 'default-src');
  const img = csp
    .split(';')
    .map((d) => d.trim().split(/\s+/))
    .find((d) => d[0] === 'img-src');
  return (img ?? directive ?? []).slice(1);
}

function iconHref(body: string): string | undefined {
  const link = /<link\b[^>]*\brel="(?:shortcut )?icon"[^>]*>/i.exec(body)?.[0];
  return link ? /\bhref="([^"]*)"/.exec(link)?.[1] : undefined;
}

function csvOf(rows: number): string {
  return `name,email,course\n${Array.from({ length: rows }, (_, i) => `Learner ${i},l${i}@example.com,Course`).join('\n')}\n`;
}

describe('favicon: every HTML page names an icon that loads, allowed by its CSP', () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('dashboard (signed out and in), verification page, front door, code box and /docs', async () => {
    const user = await createUser(env);
    const cert = await issueCertificate(env.t.app, user.tenant);
    const client = formClient(env.t);
    const signInPage = await client.get('/dashboard');
    await signInWith(client, user.email, user.password);
    const upload = await client.get(`/dashboard/certificates/upload?templateId=${user.tenant.templateId}`);
    const imported = await client.upload(
      '/dashboard/certificates/upload',
      { templateId: user.tenant.templateId },
      { name: 'class.csv', content: csvOf(501) },
    );
    assert.equal(imported.statusCode, 303, imported.body.slice(0, 300));
    const pages: [string, { statusCode: number; headers: Record<string, unknown>; body: string }][] = [
      ['/dashboard (signed out)', signInPage],
      ['/dashboard/certificates/upload', upload],
    ];
    for (const url of [
      '/dashboard',
      '/dashboard/certificates',
      `/dashboard/certificates/${cert.id}`,
      '/dashboard/certificates/new',
      String(imported.headers.location),
      '/dashboard/imports',
      '/dashboard/templates',
      `/dashboard/templates/${user.tenant.templateId}/edit`,
      '/dashboard/settings/api-keys',
      '/dashboard/no-such-page',
    ])
      pages.push([url, await client.get(url)]);
    for (const url of [
      `/verify/${cert.uniqueCode}`,
      '/verify/ZZZZZZZZZZZZZZZZ',
      '/verify/',
      '/verify/?code=nonsense',
      '/',
      '/?lang=ar',
      '/docs',
    ])
      pages.push([url, await env.t.app.inject({ method: 'GET', url })]);

    for (const [url, res] of pages) {
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      const href = iconHref(res.body);
      const csp = String(res.headers['content-security-policy'] ?? '');
      if (href === undefined) {
        // No link: the browser asks the origin for /favicon.ico.
        assert.equal(url, '/docs', `${url} names its icon`);
        const ico = await env.t.app.inject({ method: 'GET', url: '/favicon.ico' });
        assert.equal(ico.statusCode, 200, `${url}: /favicon.ico`);
        assert.equal(ico.headers['content-type'], 'image/x-icon');
        assert.deepEqual([...ico.rawPayload.subarray(0, 4)], [0, 0, 1, 0], 'an ICO file');
        assert.ok(imgSources(csp).includes("'self'"), `${url}: its CSP allows /favicon.ico (${csp})`);
      } else if (href.startsWith('data:')) {
        assert.match(href, /^data:image\/svg\+xml,/, url);
        assert.match(decodeURIComponent(href.slice(href.indexOf(',') + 1)), /^<svg [^>]*>.*<\/svg>$/s, url);
        assert.ok(imgSources(csp).includes('data:'), `${url}: its CSP allows the data: icon (${csp})`);
      } else {
        const icon = await env.t.app.inject({ method: 'GET', url: new URL(href, `http://x${url}`).pathname });
        assert.equal(icon.statusCode, 200, `${url}: ${href}`);
        assert.match(String(icon.headers['content-type']), /^image\//, `${url}: ${href}`);
        assert.ok(imgSources(csp).includes("'self'"), `${url}: its CSP allows ${href} (${csp})`);
      }
    }
    const svg = await env.t.app.inject({ method: 'GET', url: '/favicon.svg' });
    assert.equal(svg.statusCode, 200);
    assert.equal(svg.headers['content-type'], 'image/svg+xml');
    assert.match(svg.body, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });
});

const skip = browserSkipReason();
if (skip) console.log(`# page polish browser tests skipped: ${skip}`);

describe(
  'dashboard pages in Chromium: icon, labels, progress bar, usage cards, Elements list',
  { skip },
  () => {
    let env: DashboardEnv;
    let user: DashboardUser;
    let cert: { id: string; uniqueCode: string };
    let importUrl: string;
    before(async () => {
      env = await startDashboard();
      user = await createUser(env);
      cert = await issueCertificate(env.t.app, user.tenant, {
        name: 'Zoë Ångström',
        email: 'zoe@example.com',
        data: { course: 'Safe Lifting', hours: 12 },
      });
    });
    after(async () => {
      await signed?.context().close();
      await env?.close();
    });

    // One signed-in page for the layout tests (sign-in is throttled per account).
    let signed: Page | undefined;
    async function signedPage(): Promise<Page> {
      if (!signed) {
        signed = await newPage(env);
        await signIn(env, signed, user);
      }
      return signed;
    }

    // Loads each URL, collecting every answer of 400 or more and every CSP violation.
    async function problemsWhile(page: Page, action: () => Promise<unknown>): Promise<string[]> {
      const problems: string[] = [];
      const onResponse = (r: { status(): number; url(): string }) => {
        if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
      };
      const onConsole = (m: { type(): string; text(): string }) => {
        if (m.type() === 'error') problems.push(m.text());
      };
      page.on('response', onResponse);
      page.on('console', onConsole);
      await action();
      // Chromium asks for the icon after the load.
      await page.waitForTimeout(300);
      page.off('response', onResponse);
      page.off('console', onConsole);
      return problems;
    }

    it('no page load answers 404 (no /favicon.ico), and the icon is shown', async () => {
      const page = await newPage(env);
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) =>
          console.error(`CSP ${e.violatedDirective} ${e.blockedURI}`),
        );
      });
      const signedOut = await problemsWhile(page, () => page.goto(`${env.base}/dashboard`));
      assert.deepEqual(signedOut, [], 'sign-in page');
      await signIn(env, page, user);
      for (const path of [
        '/dashboard',
        `/dashboard/certificates/${cert.id}`,
        '/dashboard/templates',
        `/verify/${cert.uniqueCode}`,
        '/',
        '/verify/',
        '/docs',
      ]) {
        const problems = await problemsWhile(page, () => page.goto(`${env.base}${path}`));
        assert.deepEqual(problems, [], path);
        if (path !== '/docs') {
          const loaded = await page.evaluate(async () => {
            const href = document.querySelector<HTMLLinkElement>('link[rel=icon]')?.href;
            if (!href) return 'no icon';
            const img = new Image();
            img.src = href;
            return img.decode().then(
              () => `${img.naturalWidth}`,
              () => 'not decoded',
            );
          });
          assert.notEqual(loaded, 'no icon', path);
          assert.notEqual(loaded, 'not decoded', path);
        }
      }
      await page.context().close();
    });

    it('the certificate page shows the template fields by their labels', async () => {
      const page = await signedPage();
      await page.goto(`${env.base}/dashboard/certificates/${cert.id}`);
      const terms = (await page.locator('dl.facts dt').allTextContents()).map((t) => t.trim());
      assert.ok(terms.includes('Course title'), terms.join(' | '));
      assert.ok(terms.includes('Hours of instruction'), terms.join(' | '));
      assert.ok(!terms.includes('course') && !terms.includes('hours'), terms.join(' | '));
      const course = page
        .locator('dl.facts dt', { hasText: 'Course title' })
        .locator('xpath=following-sibling::dd[1]');
      assert.equal((await course.textContent())?.trim(), 'Safe Lifting');
      await shot(page, `polish-${TAG}-certificate`);
    });

    it('the import page: the progress bar spans its card, "Rows done" once', async () => {
      const page = await signedPage();
      await page.goto(`${env.base}/dashboard/certificates/upload?templateId=${user.tenant.templateId}`);
      await page.setInputFiles('input[name=file]', {
        name: 'class.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(csvOf(600)),
      });
      await Promise.all([
        page.waitForURL(/\/dashboard\/imports\/[0-9a-f-]{36}$/),
        page.click('text=Upload and issue'),
      ]);
      importUrl = page.url();
      await shot(page, `polish-${TAG}-import`);
      const bar = page.locator('[role=progressbar]');
      assert.equal(await bar.getAttribute('aria-valuemax'), '600');
      const card = await page.locator('section.card', { has: bar }).boundingBox();
      const box = await bar.boundingBox();
      assert.ok(card && box);
      // The card's padding is 1.2rem each side.
      assert.ok(box.width >= card.width - 2 * 20 - 2, `bar ${box.width} px in a card of ${card.width} px`);
      const text = (await page.locator('main').innerText()).match(/Rows done/g) ?? [];
      assert.equal(text.length, 1, 'the words "Rows done" are shown once');
      // The bar is still named (by the same words) for screen readers.
      assert.match(
        (await bar.evaluate((el) => (el as HTMLProgressElement).labels?.[0]?.textContent ?? '')) ?? '',
        /Rows done/,
      );
      assert.ok(importUrl);
    });

    it('the usage cards keep one height when the reset date wraps', async () => {
      for (const [name, viewport] of [
        ['desktop', DESKTOP],
        ['narrow', { width: 760, height: 900 }],
        ['phone', PHONE],
      ] as const) {
        const page = await signedPage();
        await page.setViewportSize(viewport);
        await page.goto(`${env.base}/dashboard`);
        await shot(page, `polish-${TAG}-home-${name}`);
        const heights = await page
          .locator('#usage .stat')
          .evaluateAll((cards) => cards.map((c) => Math.round(c.getBoundingClientRect().height)));
        assert.ok(
          heights.every((h) => Math.abs(h - heights[0]!) <= 1),
          `${name}: card heights ${heights.join(', ')}`,
        );
        // The date's box is no taller than a number's, wrapped or not: nothing stretches the row.
        const height = (id: string) => page.locator(id).evaluate((el) => el.getBoundingClientRect().height);
        const [date, used] = [await height('#usage-reset'), await height('#usage-used')];
        assert.ok(date <= used + 1, `${name}: the date's box ${date} px, a number's ${used} px`);
        const lines = await page.locator('#usage-reset time').evaluate((el) => el.getClientRects().length);
        if (name === 'desktop') assert.equal(lines, 1, 'the date on one line');
        else assert.ok(lines <= 2, `${name}: the date on ${lines} lines`);
      }
    });

    it("the studio's Elements list: numbers and long entries line up", async () => {
      const page = await signedPage();
      await page.setViewportSize(DESKTOP);
      await page.goto(`${env.base}/dashboard/templates/${user.tenant.templateId}/edit`);
      await page.waitForSelector('#studio-outline li');
      await page.locator('#studio-outline').scrollIntoViewIfNeeded();
      await shot(page, `polish-${TAG}-studio`);
      const items = await page.locator('#studio-outline li').evaluateAll((lis) =>
        lis.map((li) => {
          const b = li.querySelector('button')!.getBoundingClientRect();
          const l = li.getBoundingClientRect();
          const list = li.parentElement!.getBoundingClientRect();
          return {
            liTop: l.top,
            buttonTop: b.top,
            buttonLeft: b.left,
            liLeft: l.left,
            listLeft: list.left,
            text: li.textContent,
          };
        }),
      );
      assert.ok(items.length >= 10, 'two-digit numbers');
      const lefts = new Set(items.map((i) => Math.round(i.buttonLeft)));
      assert.equal(lefts.size, 1, `every entry starts at the same x: ${[...lefts].join(', ')}`);
      for (const i of items) {
        // The entry's first line is the number's line.
        assert.ok(Math.abs(i.buttonTop - i.liTop) <= 2, `${i.text}: ${i.buttonTop} vs ${i.liTop}`);
        // The numbers (markers, outside the li) fit inside the list.
        assert.ok(i.liLeft - i.listLeft >= 24, `${i.text}: room for "16." (${i.liLeft - i.listLeft} px)`);
      }
      // Markers: right-aligned numbers with their text; the list shows each number.
      const markers = await page
        .locator('#studio-outline')
        .evaluate((ol) => getComputedStyle(ol).listStyleType);
      assert.equal(markers, 'decimal');
    });
  },
);
