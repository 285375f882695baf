import { createHash } from 'node:crypto';
import { parseDuration } from '../platform/duration.js';
import type { Design } from './design.schema.js';
import { DESIGN_IMAGE_WORK, imageProblem, imageWork } from './images.js';
import { elementIssues, placeholderProblems } from './element-issues.js';
import { supportedLocale } from './placeholders.js';
import type { RenderIssue } from './render-types.js';
import { designFontFaces } from './design-fonts.js';
import { pageIssues } from './page-issues.js';

export { sampleValues } from './sample-values.js';

// Static checks of a design, run when a template is created: what can be known before any
// recipient exists. The design is assumed to be valid against the Design schema already.

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
  const declared = new Set(design.fields.map((f) => f.key));
  const custom = designFontFaces(design);
  issues.push(...custom.issues);
  issues.push(...pageIssues(design, custom.faces));

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
    const { problems } = placeholderProblems(design.title, design, declared, 'title');
    for (const message of problems) issues.push({ path: ['title'], message });
  }

  if (design.background?.image) {
    const problem = await imageCheck(design.background.image);
    if (problem) issues.push({ path: ['background', 'image'], message: problem });
  }
  for (const [k, signatory] of (design.signatories ?? []).entries()) {
    if (!signatory.signatureImage) continue;
    const problem = await imageCheck(signatory.signatureImage);
    if (problem) issues.push({ path: ['signatories', k, 'signatureImage'], message: problem });
  }

  const check = { design, declared, custom: custom.faces, imageCheck };
  for (const [i, element] of design.elements.entries())
    issues.push(...(await elementIssues(check, element, i)));
  // The work of embedding them, in all (each distinct image once): a design of many images that are
  // each within the limits must not keep a PDF thread busy for minutes.
  const sources = new Map<string, (string | number)[]>();
  if (design.background?.image) sources.set(design.background.image, ['background', 'image']);
  design.elements.forEach((e, i) => {
    if (e.type === 'image' && !sources.has(e.src)) sources.set(e.src, ['elements', i, 'src']);
  });
  design.signatories?.forEach((s, k) => {
    if (s.signatureImage && !sources.has(s.signatureImage))
      sources.set(s.signatureImage, ['signatories', k, 'signatureImage']);
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
