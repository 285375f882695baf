import type { Design, DesignElement, SignatoryElement, TextElement } from './design.schema.js';
import { elementFonts, type DesignFontFace } from './design-fonts.js';
import { elementName } from './element-labels.js';
import { fontChain, fontNames } from './fonts.js';
import { lineBox, type Box } from './lines.js';
import { parseText, signatoryValue } from './placeholders.js';
import { num } from './pdf-syntax.js';
import type { RenderIssue } from './render-types.js';
import { signatoryLayout, signatoryTexts } from './signatory-block.js';
import { unrenderableCharacters, unrenderableMessage } from './text-check.js';
import { fittingSize, lineHeight, shapeLine } from './text-layout.js';

// The checks of one element of a design (design-issues.ts runs them): each message names the
// element as the studio's list does ("Text 6: ...", numbered from 1), while the path stays the
// API's (["elements", 5, "x"], from 0).

export const KNOWN_PLACEHOLDERS =
  '{{recipient.name}}, {{data.KEY}}, {{certificate.issuedAt}}, {{certificate.expiresAt}}, {{certificate.uniqueCode}}, {{certificate.verificationUrl}}, {{signatory.N.name}}, {{signatory.N.title}}, {{signatory.N.organisation}}';

export interface ElementCheck {
  design: Design;
  declared: ReadonlySet<string>;
  custom: ReadonlyMap<string, DesignFontFace>;
  imageCheck: (src: string) => Promise<string | undefined>;
}

const bundled = new Set<string>(fontNames);

function signatoryCount(design: Design): string {
  const n = design.signatories?.length ?? 0;
  return n === 0
    ? 'the template has no signatories'
    : `the template has ${n} signator${n === 1 ? 'y' : 'ies'}`;
}

/**
 * What is wrong with the placeholders of a text (an element's, or the title), and the text with the
 * signatories' values put in (what is drawn around the recipient's values).
 */
export function placeholderProblems(
  text: string,
  design: Design,
  declared: ReadonlySet<string>,
  where: 'pdf' | 'title',
): { problems: string[]; literal: string } {
  const problems: string[] = [];
  const { segments, unknown } = parseText(text);
  for (const placeholder of unknown)
    problems.push(`unknown placeholder ${placeholder}; known are ${KNOWN_PLACEHOLDERS}`);
  let literal = '';
  for (const segment of segments) {
    if ('literal' in segment) {
      literal += segment.literal;
      continue;
    }
    const { ref } = segment;
    if (ref.source === 'data' && !declared.has(ref.key)) {
      problems.push(`{{data.${ref.key}}} uses a key that is not declared in fields`);
    } else if (ref.source === 'signatory') {
      const name = `{{signatory.${ref.index}.${ref.part}}}`;
      const value = signatoryValue(ref, design.signatories);
      if (where === 'title')
        problems.push(
          `${name} is printed on the PDF only: the title goes into the credential, which names no signatories`,
        );
      else if (value === undefined)
        problems.push(`${name} names signatory ${ref.index}, but ${signatoryCount(design)}`);
      else literal += value;
    }
  }
  // Only the design's own words can hold a stray brace: a signatory's value is not parsed again.
  const own = segments.map((s) => ('literal' in s ? s.literal : '')).join('');
  if (/\{\{|\}\}/.test(own)) problems.push('has an unclosed {{ or a stray }}');
  return { problems, literal };
}

export async function elementIssues(
  check: ElementCheck,
  element: DesignElement,
  i: number,
): Promise<RenderIssue[]> {
  const issues: RenderIssue[] = [];
  const label = elementName(element, i);
  const say = (field: string, message: string) =>
    issues.push({ path: ['elements', i, field], message: `${label}: ${message}` });
  const { width: pageWidth, height: pageHeight } = check.design.page;
  const within = (box: Box): void => {
    const right = box.x + box.width - pageWidth;
    const bottom = box.y + box.height - pageHeight;
    if (right > 1e-6) say('x', `reaches past the right edge by ${num(Math.ceil(right * 100) / 100)} pt`);
    if (bottom > 1e-6) say('y', `reaches past the bottom edge by ${num(Math.ceil(bottom * 100) / 100)} pt`);
  };
  if (element.page === 2 && (check.design.pages ?? 1) === 1)
    say('page', 'is on page 2, but the design has one page (set pages to 2)');
  const fontKnown = (font: string | undefined): boolean => {
    if (font === undefined || bundled.has(font) || check.custom.has(font)) return true;
    say(
      'font',
      `"${font}" is neither a bundled font (${fontNames.join(', ')}) nor one of the design's fonts`,
    );
    return false;
  };
  switch (element.type) {
    case 'rect':
      within(element);
      break;
    case 'image': {
      const problem = await check.imageCheck(element.src);
      if (problem) say('src', problem);
      within(element);
      break;
    }
    case 'qr':
      within({ x: element.x, y: element.y, width: element.size, height: element.size });
      break;
    case 'line':
      within(lineBox(element));
      break;
    case 'signatory':
      if (fontKnown(element.font)) signatoryIssues(check, element, say);
      within(element);
      break;
    case 'text':
      if (fontKnown(element.font)) textIssues(check, element, say, within);
      break;
  }
  return issues;
}

type Say = (field: string, message: string) => void;

function textIssues(check: ElementCheck, element: TextElement, say: Say, within: (box: Box) => void): void {
  const { own, style } = elementFonts(element.font, check.custom, check.design.locale);
  const size = element.size ?? 14;
  const { problems, literal } = placeholderProblems(element.text, check.design, check.declared, 'pdf');
  for (const problem of problems) say('text', problem);
  const chain = fontChain(own, literal, style);
  const bad = unrenderableCharacters(literal, chain);
  if (bad.length > 0) say('text', unrenderableMessage(bad));
  if (element.minSize !== undefined && element.minSize > size) {
    say('minSize', `is larger than size (${num(size)})`);
  } else if (element.minSize !== undefined && bad.length === 0) {
    const line = shapeLine(literal, chain);
    if (!('uncovered' in line) && fittingSize(line, element.width, size) < element.minSize)
      say('text', `does not fit its width even at the minimum size ${num(element.minSize)} pt`);
  }
  within({ x: element.x, y: element.y, width: element.width, height: lineHeight(own[0]!.font, size) });
}

function signatoryIssues(check: ElementCheck, element: SignatoryElement, say: Say): void {
  const signatory = check.design.signatories?.[element.index - 1];
  if (!signatory) {
    say('index', `shows signatory ${element.index}, but ${signatoryCount(check.design)}`);
    return;
  }
  const { own, style } = elementFonts(element.font, check.custom, check.design.locale);
  const texts = signatoryTexts(signatory);
  const bad = new Set<string>();
  for (const text of texts)
    for (const b of unrenderableCharacters(text, fontChain(own, text, style))) bad.add(b);
  if (bad.size > 0)
    say(
      'index',
      `the name, title or organisation of signatory ${element.index} ${unrenderableMessage([...bad])}`,
    );
  const { needed } = signatoryLayout(element, signatory, own[0]!.font);
  if (element.height + 1e-6 < needed) {
    const what = ['its line and name', 'its line, name and title', 'its line, name, title and organisation'][
      texts.length - 1
    ];
    say(
      'height',
      `is ${num(element.height)} pt tall, too short for ${what}: make it at least ${num(Math.ceil(needed))} pt`,
    );
  }
}
