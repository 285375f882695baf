import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseTrueType, type TrueTypeFont } from './truetype-font.js';

export type FontName = 'sans' | 'sans-bold' | 'serif' | 'serif-bold';

export const fontNames: readonly FontName[] = ['sans', 'sans-bold', 'serif', 'serif-bold'];

const files: Record<FontName, string> = {
  sans: 'DejaVuSans.ttf',
  'sans-bold': 'DejaVuSans-Bold.ttf',
  serif: 'DejaVuSerif.ttf',
  'serif-bold': 'DejaVuSerif-Bold.ttf',
};

// Parsed fonts are immutable, so one copy per thread is shared by every template.
const loaded = new Map<FontName, TrueTypeFont>();

function fontDirectory(): string {
  const packageJson = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json');
  return join(dirname(packageJson), 'ttf');
}

export function loadFont(name: FontName): TrueTypeFont {
  let font = loaded.get(name);
  if (!font) {
    font = parseTrueType(readFileSync(join(fontDirectory(), files[name])));
    loaded.set(name, font);
  }
  return font;
}
