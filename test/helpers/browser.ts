import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

// Debian's chromium, driven by playwright-core (no browser download). CI installs the package; where
// it is missing the browser tests skip with browserSkipReason().
export const CHROMIUM_PATH = '/usr/bin/chromium';

export function browserSkipReason(): string | false {
  return existsSync(CHROMIUM_PATH) ? false : `${CHROMIUM_PATH} is not installed (apt-get install chromium)`;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

export interface OpenedPage {
  page: Page;
  context: BrowserContext;
  /** HTTP status of the navigation response. */
  status: number | undefined;
  /** Messages of every alert/confirm/prompt the page tried to open (each is dismissed). */
  dialogs: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
  /** Content-Security-Policy violations reported inside the page. */
  cspViolations(): Promise<string[]>;
  close(): Promise<void>;
}

export interface OpenPageOptions {
  viewport?: { width: number; height: number };
  /** Runs in the page before any of its own scripts (e.g. to take crypto.subtle away). */
  initScript?: string;
}

// Opens `url` in a fresh context (no shared cookies or cache) and records what tests usually assert
// on: dialogs, errors and CSP violations. Navigation waits for the load event.
export async function openPage(
  browser: Browser,
  url: string,
  opts: OpenPageOptions = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 900 } });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss().catch(() => undefined);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  await page.addInitScript(() => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  if (opts.initScript) await page.addInitScript({ content: opts.initScript });
  const response = await page.goto(url, { waitUntil: 'load' });
  return {
    page,
    context,
    status: response?.status(),
    dialogs,
    errors,
    cspViolations: () =>
      page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations),
    close: () => context.close(),
  };
}
