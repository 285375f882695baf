// The font families a text may name, and the names uploaded fonts get (Node tests check them).

/**
 * The font families of the fonts a text may name, with their weights: `sans` and `sans-bold` are
 * the family `sans` in Regular and Bold (a design's own fonts follow the same `-bold` naming).
 */
export function studioFontFamilies(
  names: string[],
): { family: string; weights: { name: string; label: string }[] }[] {
  const families: { family: string; weights: { name: string; label: string }[] }[] = [];
  for (const name of names) {
    const bold = name.endsWith('-bold');
    const family = bold ? name.slice(0, -'-bold'.length) : name;
    let entry = families.find((f) => f.family === family);
    if (!entry) families.push((entry = { family, weights: [] }));
    entry.weights.push({ name, label: bold ? 'Bold' : 'Regular' });
    entry.weights.sort((a, b) => Number(a.label === 'Bold') - Number(b.label === 'Bold'));
  }
  return families;
}

/**
 * The name an uploaded font gets in the design: its family in lower case with hyphens ("Open Sans"
 * becomes `open-sans`), `-bold` added for a bold one, so that studioFontFamilies shows the two as
 * one family in two weights (a family name ending in "Bold" counts as that family's bold); a number
 * when the family is already there in that weight (`open-sans-2`); `font-N` when the family has no
 * letter this keeps. Always a valid design font name (`^[a-z][a-z0-9-]{0,31}$`), not in `taken` nor
 * a bundled name.
 */
export function studioFontName(family: string | null | undefined, bold: boolean, taken: string[]): string {
  const used = new Set(['sans', 'sans-bold', 'serif', 'serif-bold', ...taken]);
  const slug = (family ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '')
    .slice(0, 20)
    .replace(/-+$/, '')
    .replace(/-bold$/, ''); // "Open Sans Bold" as a family name: the bold of open-sans
  const suffix = bold ? '-bold' : '';
  if (slug) {
    for (let n = 1; n < 100; n++) {
      const name = `${slug}${n === 1 ? '' : `-${n}`}${suffix}`;
      if (!used.has(name)) return name;
    }
  }
  for (let n = 1; ; n++) if (!used.has(`font-${n}${suffix}`)) return `font-${n}${suffix}`;
}
