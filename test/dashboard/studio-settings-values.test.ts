import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Design } from '../../src/pdf/design.schema.js';
import { fieldChoices, namedText } from '../../src/browser/studio/placeholder-names.js';
import {
  nameProblem,
  parseReminders,
  renewalUrlProblem,
  validityParts,
  validityText,
} from '../../src/browser/studio/settings-values.js';
import { parseDuration } from '../../src/platform/duration.js';

// The Settings panel's values and "Insert field"'s names (src/browser/studio/settings-values.ts,
// placeholder-names.ts), in Node without a browser.

describe('studio settings: validity as a number and a unit', () => {
  it('reads a duration as one number and one unit', () => {
    assert.deepEqual(validityParts('P2Y'), { amount: 2, unit: 'Y' });
    assert.deepEqual(validityParts('P6M'), { amount: 6, unit: 'M' });
    assert.deepEqual(validityParts('P1Y6M'), { amount: 18, unit: 'M' });
    assert.deepEqual(validityParts('P24M'), { amount: 2, unit: 'Y' });
    assert.deepEqual(validityParts('P4W'), { amount: 4, unit: 'W' });
    assert.deepEqual(validityParts('P14D'), { amount: 2, unit: 'W' });
    assert.deepEqual(validityParts('P90D'), { amount: 90, unit: 'D' });
    assert.deepEqual(validityParts('P1W3D'), { amount: 10, unit: 'D' });
  });

  it('has no number and unit for no validity, a mixed one, or not a duration', () => {
    for (const v of [undefined, 'P', 'P1M2D', 'P1Y1W', 'PT12H', 'P0Y', '2 years', ''])
      assert.equal(validityParts(v), undefined, String(v));
  });

  it('writes a number and a unit as a duration the service accepts, and says what is wrong otherwise', () => {
    for (const [amount, unit, want] of [
      ['2', 'Y', 'P2Y'],
      ['18', 'M', 'P18M'],
      ['3', 'W', 'P3W'],
      ['90', 'D', 'P90D'],
      ['100', 'Y', 'P100Y'],
    ] as const) {
      const got = validityText(amount, unit);
      assert.deepEqual(got, { ok: true, validity: want });
      assert.equal(parseDuration(want).ok, true, want);
      // Back to the same number and unit.
      assert.deepEqual(validityParts(want), { amount: Number(amount), unit });
    }
    for (const [amount, unit] of [
      ['', 'Y'],
      ['0', 'Y'],
      ['-1', 'M'],
      ['1.5', 'Y'],
      ['abc', 'D'],
    ] as const) {
      const got = validityText(amount, unit);
      assert.equal(got.ok, false, `${amount}${unit}`);
    }
    // Past 100 years: refused here as the service refuses it.
    for (const [amount, unit] of [
      ['101', 'Y'],
      ['1300', 'M'],
      ['40000', 'D'],
    ] as const) {
      const got = validityText(amount, unit);
      assert.deepEqual(got, { ok: false, message: 'A validity is at most 100 years.' });
      assert.equal(parseDuration(`P${amount}${unit}`).ok, false);
    }
  });
});

describe('studio settings: reminders, renewal URL, name', () => {
  it('reads reminders typed with commas or spaces', () => {
    assert.deepEqual(parseReminders('30, 7'), { ok: true, days: [30, 7] });
    assert.deepEqual(parseReminders(' 60 30;7 '), { ok: true, days: [60, 30, 7] });
    assert.deepEqual(parseReminders(''), { ok: true, days: [] });
    assert.deepEqual(parseReminders('7, 7'), { ok: false, message: '7 is there twice.' });
    assert.equal(parseReminders('0').ok, false);
    assert.equal(parseReminders('3651').ok, false);
    assert.equal(parseReminders('1.5').ok, false);
    assert.equal(parseReminders('a week').ok, false);
    assert.equal(parseReminders('1 2 3 4 5 6 7 8 9 10').ok, true);
    assert.equal(parseReminders('1 2 3 4 5 6 7 8 9 10 11').ok, false);
  });

  it('takes only https:// renewal URLs without a user name', () => {
    assert.equal(renewalUrlProblem(''), undefined);
    assert.equal(renewalUrlProblem('https://academy.example/renew'), undefined);
    for (const bad of [
      'http://academy.example/renew',
      'academy.example/renew',
      'javascript:alert(1)',
      'https://user:pw@academy.example/',
      `https://academy.example/${'a'.repeat(2000)}`,
    ])
      assert.match(renewalUrlProblem(bad) ?? '', /must be an https:\/\/ address/, bad);
  });

  it('needs a name of at most 200 characters', () => {
    assert.equal(nameProblem('Course completion'), undefined);
    assert.ok(nameProblem(''));
    assert.ok(nameProblem('   '));
    assert.ok(nameProblem('x'.repeat(201)));
  });
});

describe('studio: placeholders by name', () => {
  const design = {
    name: 'T',
    page: { width: 842, height: 595 },
    fields: [
      { key: 'course', label: 'Course', required: true },
      { key: 'hours', label: 'Hours', required: false },
      { key: 'units', label: 'Units', required: false, type: 'list' },
    ],
    signatories: [
      { name: 'Dr. Ada Lee', title: 'Programme Director' },
      { name: 'Sam Roe', organisation: 'Academy' },
    ],
    elements: [],
  } as unknown as Design;

  it('lists the certificate values, the fields of one value by label, and each signatory', () => {
    assert.deepEqual(
      fieldChoices(design).map((c) => [c.label, c.placeholder]),
      [
        ['Recipient name', '{{recipient.name}}'],
        ['Issue date', '{{certificate.issuedAt}}'],
        ['Expiry date', '{{certificate.expiresAt}}'],
        ['Certificate code', '{{certificate.uniqueCode}}'],
        ['Verification link', '{{certificate.verificationUrl}}'],
        ['Course', '{{data.course}}'],
        ['Hours', '{{data.hours}}'],
        ['Signatory 1: name', '{{signatory.1.name}}'],
        ['Signatory 1: title', '{{signatory.1.title}}'],
        ['Signatory 2: name', '{{signatory.2.name}}'],
        ['Signatory 2: title', '{{signatory.2.title}}'],
        ['Signatory 2: organisation', '{{signatory.2.organisation}}'],
      ],
    );
  });

  it('tells two fields of the same label apart by their keys', () => {
    const twice = {
      ...design,
      fields: [
        { key: 'a', label: 'Date', required: true },
        { key: 'b', label: 'Date', required: true },
      ],
      signatories: [],
    } as unknown as Design;
    assert.deepEqual(
      fieldChoices(twice)
        .slice(5)
        .map((c) => c.label),
      ['Date (a)', 'Date (b)'],
    );
  });

  it('shows a text with its placeholders named, unknown ones as typed', () => {
    assert.equal(namedText('{{recipient.name}}', design), '[Recipient name]');
    assert.equal(
      namedText(
        'Awarded to {{ recipient.name }} for {{data.course}} ({{data.hours}} h), {{certificate.expiresAt}}',
        design,
      ),
      'Awarded to [Recipient name] for [Course] ([Hours] h), [Expiry date]',
    );
    assert.equal(
      namedText('{{signatory.1.title}} / {{signatory.4.name}}', design),
      '[Signatory 1: title] / [Signatory 4: name]',
    );
    assert.equal(namedText('{{data.units}}', design), '[Units]');
    assert.equal(namedText('{{data.nope}} {{whatever}} plain', design), '{{data.nope}} {{whatever}} plain');
  });
});
