import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderDocument } from '../../src/pdf/document-writer.js';
import { textString } from '../../src/pdf/pdf-syntax.js';
import { compileTemplate } from '../../src/pdf/template-compiler.js';
import { loadDesign, values } from './pdf-helpers.js';
import { qpdfJson } from './tagged-support.js';

// Text strings (/ActualText, /Alt, /Lang, /Title): printable ASCII as literal strings, with the
// characters a literal string cannot hold as they are escaped; anything else as UTF-16BE hex.
// Read back with qpdf, an independent parser, they give the text as typed.

describe('text strings', () => {
  it('writes printable ASCII as a literal string, escaping ( ) and \\', () => {
    assert.equal(textString('QR code: https://x.example/v/7K3M'), '(QR code: https://x.example/v/7K3M)');
    assert.equal(textString('a (b) \\ c'), '(a \\(b\\) \\\\ c)');
    assert.equal(textString(')('), '(\\)\\()');
  });

  it('writes anything else as UTF-16BE hex with a byte order mark', () => {
    assert.equal(textString('Zoë'), '<FEFF005a006f00eb>');
    assert.equal(
      textString('tab\there'),
      `<FEFF${[...'tab\there'].map((c) => c.charCodeAt(0).toString(16).padStart(4, '0')).join('')}>`,
    );
  });

  it('reads back as typed from a PDF, name and QR alternative text', () => {
    const template = compileTemplate(loadDesign('course-completion'));
    const names = ['Ada (Countess) \\ Lovelace', ') Odd ( name \\', 'Zoë Ångström'];
    for (const name of names) {
      const url = 'https://certs.example.com/verify/7K3M9Q2XRB4D8F1H?(a)=\\';
      const result = renderDocument(template, values({ recipientName: name, verificationUrl: url }));
      assert.ok(result.ok);
      const elements = Object.values(qpdfJson(result.pdf)).map(
        (o) => (o.value ?? {}) as Record<string, unknown>,
      );
      const texts = elements.map((e) => e['/ActualText']).filter((t) => t !== undefined);
      const alts = elements.map((e) => e['/Alt']).filter((t) => t !== undefined);
      assert.ok(texts.includes(`u:${name}`), `${name}: ${JSON.stringify(texts)}`);
      assert.ok(alts.includes(`u:QR code: verification link ${url}`), JSON.stringify(alts));
    }
  });
});
