// The form of a recipient's name that search compares: case- and accent-insensitive. Accents are
// the combining marks of Latin, Greek and Cyrillic (U+0300-U+036F); the marks of other scripts
// (Devanagari vowel signs, Arabic harakat...) are part of the letters there and stay. A few letters
// with no decomposition are spelled out, as a reader would type them.
const SPELLED: Record<string, string> = {
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ħ: 'h',
  ı: 'i',
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  þ: 'th',
};

export function searchFold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[øłđħıßæœþ]/g, (c) => SPELLED[c] ?? c)
    .normalize('NFC');
}

// A LIKE pattern matching the folded query anywhere in the folded name.
export function containsPattern(query: string): string {
  return `%${searchFold(query).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
