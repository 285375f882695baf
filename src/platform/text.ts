// The rules for short public text that people type (a recipient name, a revocation reason): it is
// trimmed, and it may not hold control characters, bidi overrides or isolates (which can reorder
// what a reader sees around it) or Unicode noncharacters. Returns why the text is refused, if it is.

// C0 and C1 controls with DEL; LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI; the noncharacters
// U+FDD0..U+FDEF and the last two code points of every plane.
const FORBIDDEN =
  // eslint-disable-next-line no-control-regex -- matching controls is the point
  /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\uFDD0-\uFDEF\uFFFE\uFFFF\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/u;

export const FORBIDDEN_TEXT_MESSAGE =
  'must not contain control characters, bidi overrides or Unicode noncharacters';

export function hasForbiddenCharacter(text: string): boolean {
  return FORBIDDEN.test(text);
}

export function plainTextProblem(trimmed: string, max: number): string | undefined {
  const length = [...trimmed].length;
  if (length < 1 || length > max) return `must be 1 to ${max} characters after trimming`;
  if (FORBIDDEN.test(trimmed)) return FORBIDDEN_TEXT_MESSAGE;
  return undefined;
}
