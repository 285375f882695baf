import { createHash } from 'node:crypto';
import { parseDuration } from '../platform/duration.js';
import type { Design } from './design.schema.js';
import { fontChain, fontNames } from './fonts.js';
import { DESIGN_IMAGE_WORK, imageProblem, imageWork } from './images.js';
import { parseText, supportedLocale } from './placeholders.js';
import { num } from './pdf-syntax.js';
import type { RenderIssue } from './render-types.js';
import { designFontFaces, elementFonts } from './design-fonts.js';
import { unrenderableCharacters, unrenderableMessage } from './text-check.js';
import { fittingSize, lineHeight, shapeLine } from './text-layout.js';
import { pageIssues } from './page-issues.js';

export { sampleValues } from './sample-values.js';

// Static checks of a design, run when a template is created: what can be known before any
// recipient exists. The design is assumed to be valid against the Design schema already.

const known =
  '{{recipient.name}}, {{data.KEY}}, {{certificate.issuedAt}}, {{certificate.expiresAt}}, {{certificate.uniqueCode}}, {{certificate.verificationUrl}}';

// Images checked lately in this thread, by the SHA-256 of their data URL: each distinct image is
// checked once per design however many elements show it, and not again when the next version of
// the design (an element moved) keeps it.
const CHECKED_IMAGES = 64;
const checkedImages = new Map<string, Promise<string | undefined>>();

function imageCheck(src: string): Promise<string | undefined> {
  const key = createHash('sha256').update(src).digest('base64');
  let problem = checkedImages.get(key);
  if (problem) checkedImages.delete(key);
  else problem = imageProblem(src);
  checkedImages.set(key, problem);
  if (checkedImages.size > CHECKED_IMAGES) checkedImages.delete(checkedImages.keys().next().value!);
  return problem;
}

export async function designIssues(design: Design): Promise<RenderIssue[]> {
  const issues: RenderIssue[] = [];
  const { width: pageWidth, height: pageHeight } = design.page;
  const declared = new Set(design.fields.map((f) => f.key));
  const custom = designFontFaces(design);
  issues.push(...custom.issues);
  issues.push(...pageIssues(design, custom.faces));
  const bundled = new Set<string>(fontNames);
  const within = (i: number, x: number, y: number, right: number, bottom: number): void => {
    if (x + right > pageWidth + 1e-6) {
      issues.push({
        path: ['elements', i, 'x'],
        message: `extends past the right edge of the page (${num(x + right)} > ${num(pageWidth)})`,
      });
    }
    if (y + bottom > pageHeight + 1e-6) {
      issues.push({
        path: ['elements', i, 'y'],
        message: `extends past the bottom edge of the page (${num(y + bottom)} > ${num(pageHeight)})`,
      });
    }
  };

  if (design.locale !== undefined && !supportedLocale(design.locale)) {
    issues.push({
      path: ['locale'],
      message: `"${design.locale}" is not a language this service can write dates in (a BCP 47 tag such as en, fr, de-CH, ar-EG)`,
    });
  }

  if (design.validity !== undefined) {
    const parsed = parseDuration(design.validity);
    if (!parsed.ok) issues.push({ path: ['validity'], message: parsed.message });
  }

  if (design.renewalUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(design.renewalUrl);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'https:' || url.username !== '' || url.password !== '')
      issues.push({
        path: ['renewalUrl'],
        message: 'must be an https:// URL, e.g. https://academy.example/renew',
      });
  }

  if (design.title !== undefined) {
    const { segments, unknown } = parseText(design.title);
    for (const placeholder of unknown) {
      issues.push({ path: ['title'], message: `unknown placeholder ${placeholder}; known are ${known}` });
    }
    for (const segment of segments) {
      if ('ref' in segment && segment.ref.source === 'data' && !declared.has(segment.ref.key)) {
        issues.push({
          path: ['title'],
          message: `{{data.${segment.ref.key}}} uses a key that is not declared in fields`,
        });
      }
    }
  }

  if (design.background?.image) {
    const problem = await imageCheck(design.background.image);
    if (problem) issues.push({ path: ['background', 'image'], message: problem });
  }

  for (const [i, element] of design.elements.entries()) {
    switch (element.type) {
      case 'rect':
        within(i, element.x, element.y, element.width, element.height);
        break;
      case 'image': {
        const problem = await imageCheck(element.src);
        if (problem) issues.push({ path: ['elements', i, 'src'], message: problem });
        within(i, element.x, element.y, element.width, element.height);
        break;
      }
      case 'qr':
        within(i, element.x, element.y, element.size, element.size);
        break;
      case 'text': {
        if (element.font !== undefined && !bundled.has(element.font) && !custom.faces.has(element.font)) {
          issues.push({
            path: ['elements', i, 'font'],
            message: `"${element.font}" is neither a bundled font (${fontNames.join(', ')}) nor one of the design's fonts`,
          });
          break;
        }
        const { own, bold } = elementFonts(element.font, custom.faces);
        const metrics = own[0]!.font;
        const size = element.size ?? 14;
        const path = ['elements', i, 'text'];
        const { segments, unknown } = parseText(element.text);
        for (const placeholder of unknown) {
          issues.push({ path, message: `unknown placeholder ${placeholder}; known are ${known}` });
        }
        let literal = '';
        for (const segment of segments) {
          if ('literal' in segment) literal += segment.literal;
          else if (segment.ref.source === 'data' && !declared.has(segment.ref.key)) {
            issues.push({
              path,
              message: `{{data.${segment.ref.key}}} uses a key that is not declared in fields`,
            });
          }
        }
        if (/\{\{|\}\}/.test(literal)) issues.push({ path, message: 'has an unclosed {{ or a stray }}' });
        const chain = fontChain(own, literal, bold);
        const bad = unrenderableCharacters(literal, chain);
        if (bad.length > 0) issues.push({ path, message: unrenderableMessage(bad) });
        if (element.minSize !== undefined && element.minSize > size) {
          issues.push({ path: ['elements', i, 'minSize'], message: `is larger than size (${num(size)})` });
        } else if (element.minSize !== undefined && bad.length === 0) {
          const line = shapeLine(literal, chain);
          if (!('uncovered' in line) && fittingSize(line, element.width, size) < element.minSize) {
            issues.push({
              path,
              message: `does not fit its width even at the minimum size ${num(element.minSize)} pt`,
            });
          }
        }
        within(i, element.x, element.y, element.width, lineHeight(metrics, size));
        break;
      }
    }
  }
  // The work of embedding them, in all (each distinct image once): a design of many images that are
  // each within the limits must not keep a PDF thread busy for minutes.
  const sources = new Map<string, (string | number)[]>();
  if (design.background?.image) sources.set(design.background.image, ['background', 'image']);
  design.elements.forEach((e, i) => {
    if (e.type === 'image' && !sources.has(e.src)) sources.set(e.src, ['elements', i, 'src']);
  });
  let work = 0;
  for (const [src, path] of sources) {
    if ((await imageCheck(src)) !== undefined) continue;
    work += imageWork(src);
    if (work > DESIGN_IMAGE_WORK) {
      issues.push({
        path,
        message: `brings the design's images with transparency (or interlacing) over ${DESIGN_IMAGE_WORK / 1e6} MB decoded in all: use fewer or smaller ones, or JPEG and PNG without alpha`,
      });
      break;
    }
  }
  return issues;
}
