import type { Face } from './fonts.js';
import { coversAll } from './text-runs.js';

// What a value may contain to be drawn: characters some font of its chain has a glyph for, and no
// invisible tricks.

// Control, format (bidi overrides and isolates, soft hyphen), surrogate, private-use, unassigned and
// line/paragraph separator characters: never drawn, even where a font happens to map them, since
// they let a name display differently from what it is ("Evil\u202Egpj.exe"). The zero-width
// non-joiner and joiner are the exception: Persian and Indic spelling needs them, and they only
// choose between letter forms.
const invisible = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;

// Printable Latin-1 but the soft hyphen: nothing invisible, known without the costly test above.
const printable = /^[\u0020-\u007e\u00a0-\u00ac\u00ae-\u00ff]*$/;

/** Characters of `text` that no font of the chain can draw, described for an issue message. */
export function unrenderableCharacters(text: string, chain: readonly Face[]): string[] {
  const first = chain[0];
  if (first && (printable.test(text) || !invisible.test(text)) && coversAll(first, text, 0, text.length))
    return [];
  const bad: string[] = [];
  for (const char of text) {
    const hidden = invisible.test(char);
    if (!hidden && chain.some((face) => coversAll(face, char, 0, char.length))) continue;
    const code = `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
    const shown = hidden ? code : `"${char}" (${code})`;
    if (!bad.includes(shown)) bad.push(shown);
  }
  return bad;
}

export function unrenderableMessage(bad: string[]): string {
  const listed = bad.slice(0, 5).join(', ');
  return `contains characters that cannot be rendered: ${listed}${bad.length > 5 ? ', ...' : ''}`;
}
