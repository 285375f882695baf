import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import * as hb from 'harfbuzzjs';
import { bundledFace, bundledFacePath } from '../../src/pdf/font-catalog.js';
import { LANGUAGE_NAMES, LANGUAGES, type Language } from '../../src/platform/i18n/i18n.js';
import { browserSkipReason } from '../helpers/browser.js';
import { createUser, startDashboard, type DashboardEnv } from '../dashboard/support.js';
import { certificatesInEveryState, type Codes } from './fixtures.js';

const skip = browserSkipReason();

// Issue 32, item 4 and decisions section 23: the language switcher draws every language's name in
// its own script with fonts the service ships (@font-face), never the reader's system fonts. This
// machine's Chromium has system fonts for Latin and maybe others: the test asks Chromium, through
// the DevTools protocol, which font drew each name, and requires the shipped web font.

// The family each name's font file declares (the bundled face it is cut from).
const FAMILY: Record<Language, string> = {
  en: 'DejaVu Sans',
  fr: 'DejaVu Sans',
  de: 'DejaVu Sans',
  es: 'DejaVu Sans',
  pt: 'DejaVu Sans',
  ar: 'Noto Sans Arabic',
  hi: 'Noto Sans Devanagari',
  zh: 'Noto Sans SC',
  ja: 'Noto Sans JP',
};

// Shapes `text` with HarfBuzz (the shaping the browser does): its glyphs' advances, and whether any
// character had no glyph.
function shaped(font: Uint8Array, text: string): { advance: number; missing: boolean } {
  const hbFont = new hb.Font(new hb.Face(new hb.Blob(font.slice())));
  const buffer = new hb.Buffer();
  buffer.addText(text);
  buffer.guessSegmentProperties();
  hb.shape(hbFont, buffer);
  const infos = buffer.getGlyphInfos();
  const advance = buffer.getGlyphPositions().reduce((sum, p) => sum + p.xAdvance, 0);
  return { advance, missing: infos.some((i) => i.codepoint === 0) };
}

describe(
  'accessibility: the language switcher names each language in its own script, with shipped fonts',
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

    it('Chromium draws every name of the switcher with the shipped font: verification page, front door, code box', async () => {
      const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      try {
        const pages = [
          { path: `/verify/${codes.valid}`, current: 'en' },
          { path: `/verify/${codes.valid}`, current: 'ar' },
          { path: '/', current: 'ja' },
          { path: '/verify/', current: 'hi' },
        ] as const;
        for (const { path, current } of pages) {
          await page.goto(`${env.base}${path}?lang=${current}`, { waitUntil: 'load' });
          await page.evaluate(() => document.fonts.ready);
          await cdp.send('DOM.enable');
          await cdp.send('CSS.enable');
          const { root } = await cdp.send('DOM.getDocument');
          for (const lang of LANGUAGES) {
            const link = page.locator(`#languages a[lang=${lang}]`);
            assert.equal(await link.textContent(), LANGUAGE_NAMES[lang]);
            const { nodeId } = await cdp.send('DOM.querySelector', {
              nodeId: root.nodeId,
              selector: `#languages a[lang=${lang}]`,
            });
            const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
            const where = `${lang} on ${path} in ${current}: ${JSON.stringify(fonts)}`;
            assert.ok(fonts.length > 0, where);
            assert.ok(
              fonts.every((f) => f.isCustomFont && f.familyName === FAMILY[lang]),
              where,
            );
            // The computed family names the shipped face, and that FontFace is loaded.
            const family = await link.evaluate((a) => getComputedStyle(a).fontFamily);
            assert.match(family, /^"certsvc language /, where);
            const weight = lang === current ? '700' : '400';
            const loaded = await page.evaluate(
              ([fam, w]) =>
                [...document.fonts].some(
                  (f) => `"${f.family.replace(/"/g, '')}"` === fam && f.weight === w && f.status === 'loaded',
                ),
              [family.split(',')[0]!, weight] as const,
            );
            assert.ok(loaded, `${where}: no loaded FontFace ${family} ${weight}`);
          }
        }
      } finally {
        await context.close();
      }
    });

    it('serves each font small and cut to the names, shaping as the whole font does (Arabic joined, Devanagari conjuncts)', async () => {
      const page = await fetch(`${env.base}/verify/${codes.valid}?lang=en`);
      const files = [
        ...(await page.text()).matchAll(/url\(fonts\/(language-[a-z]+-(?:400|700)-[0-9A-F]{10}\.ttf)\)/g),
      ].map((m) => m[1]!);
      assert.equal(files.length, 10, files.join(' '));
      const names: Record<string, { langs: Language[]; face: (w: string) => string }> = {
        latin: {
          langs: ['en', 'fr', 'de', 'es', 'pt'],
          face: (w) => (w === '700' ? 'dejavu-sans-bold' : 'dejavu-sans'),
        },
        arabic: { langs: ['ar'], face: (w) => `noto-arabic-${w}` },
        devanagari: { langs: ['hi'], face: (w) => `noto-devanagari-${w}` },
        sc: { langs: ['zh'], face: (w) => `noto-sc-${w}` },
        jp: { langs: ['ja'], face: (w) => `noto-jp-${w}` },
      };
      for (const file of files) {
        const res = await fetch(`${env.base}/verify/fonts/${file}`);
        assert.equal(res.status, 200, file);
        assert.equal(res.headers.get('content-type'), 'font/ttf');
        assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000/);
        const bytes = new Uint8Array(await res.arrayBuffer());
        assert.ok(bytes.length < 20_000, `${file}: ${bytes.length} bytes`);
        const [, group, weight] = /^language-([a-z]+)-(\d+)-/.exec(file)!;
        const whole = readFileSync(bundledFacePath(bundledFace(names[group!]!.face(weight!))));
        for (const lang of names[group!]!.langs) {
          const name = LANGUAGE_NAMES[lang];
          const cut = shaped(bytes, name);
          assert.equal(cut.missing, false, `${file}: ${name}`);
          assert.equal(
            cut.advance,
            shaped(whole, name).advance,
            `${file}: ${name} shapes as with the whole font`,
          );
        }
      }
      for (const file of ['language-arabic-400.ttf', 'language-klingon-400-0000000000.ttf']) {
        assert.equal((await fetch(`${env.base}/verify/fonts/${file}`)).status, 404, file);
      }
    });
  },
);
