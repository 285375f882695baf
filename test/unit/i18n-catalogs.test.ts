import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CATALOGS,
  fromAcceptLanguage,
  LANGUAGES,
  languageOf,
  message,
  messageFragment,
} from '../../src/platform/i18n/i18n.js';
import { en } from '../../src/platform/i18n/messages/en.js';
import { safe } from '../../src/platform/html.js';

// The message catalogs of the verification page and the certificate email (issue 19 part 8).

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('message catalogs', () => {
  it('every catalog has every key English has, with the same placeholders, and nothing else', () => {
    const keys = Object.keys(en) as (keyof typeof en)[];
    for (const lang of LANGUAGES) {
      const catalog = CATALOGS[lang];
      const missing = keys.filter((k) => typeof catalog[k] !== 'string' || catalog[k]!.trim() === '');
      assert.deepEqual(missing, [], `${lang} lacks ${missing.join(', ')}`);
      const extra = Object.keys(catalog).filter((k) => !(k in en));
      assert.deepEqual(extra, [], `${lang} has keys English does not: ${extra.join(', ')}`);
      for (const k of keys) {
        assert.deepEqual(placeholders(catalog[k]!), placeholders(en[k]), `${lang} ${k}: placeholders`);
      }
    }
  });

  it('has the keys the expiry and reissue pages need', () => {
    assert.equal(
      message('fr', 'page.expired.text', { date: '24 novembre 2026' }),
      'Expiré le 24 novembre 2026',
    );
    assert.match(
      String(messageFragment('en', 'page.superseded.text', { link: safe('<a href="X">X</a>') })),
      /replaced by <a href="X">X<\/a>$/,
    );
  });

  it('falls back to English for a missing string, and escapes the message text, not the HTML params', () => {
    const catalog = CATALOGS.de as Record<string, string>;
    const saved = catalog['share.copy']!;
    delete catalog['share.copy'];
    try {
      assert.equal(message('de', 'share.copy'), 'Copy link');
    } finally {
      catalog['share.copy'] = saved;
    }
    assert.equal(message('de', 'share.copy'), 'Link kopieren');
    assert.equal(
      String(messageFragment('en', 'page.valid.text', { issuer: safe('<bdi>A &amp; B</bdi>') })),
      'Issued by <bdi>A &amp; B</bdi> and not revoked.',
    );
    assert.equal(String(messageFragment('fr', 'check.checking')), 'Vérification de «\u00a0{file}\u00a0»…');
  });

  it('picks the language from a tag or an Accept-Language header', () => {
    assert.equal(languageOf('fr-CA'), 'fr');
    assert.equal(languageOf('zh-Hant-TW'), 'zh');
    assert.equal(languageOf('AR'), 'ar');
    assert.equal(languageOf('nl'), undefined);
    assert.equal(languageOf(undefined), undefined);
    assert.equal(fromAcceptLanguage('ar-EG,ar;q=0.9,en;q=0.8'), 'ar');
    assert.equal(fromAcceptLanguage('nl-NL, de;q=0.7, en;q=0.9'), 'en');
    assert.equal(fromAcceptLanguage('nl, sv;q=0.5'), undefined);
    assert.equal(fromAcceptLanguage('*'), undefined);
    assert.equal(fromAcceptLanguage('ja;q=0, hi;q=0.2'), 'hi');
    assert.equal(fromAcceptLanguage(`${'x,'.repeat(5000)}fr`), undefined, 'bounded work');
  });
});
