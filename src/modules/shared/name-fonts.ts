import { bundledFace, bundledFacePath } from '../../pdf/font-catalog.js';

// Names on the verification page and in emails are shown in any script the certificates print. One
// font family, first in the stack but limited by unicode-range to the scripts below (Latin text keeps
// the system font): for each script the reader's own font when the device has one (local()), else
// the service's bundled Noto font, which a browser downloads only for a name with such characters.
// Generic families cannot be trusted to fall back: Chromium on Linux draws empty boxes with them.

const scripts: { id: string; range: string; local: string[] }[] = [
  {
    id: 'arabic',
    range: 'U+0600-06FF,U+0750-077F,U+0870-08FF,U+FB50-FDFF,U+FE70-FEFF',
    local: ['Noto Sans Arabic', 'Geeza Pro', 'Segoe UI'],
  },
  { id: 'hebrew', range: 'U+0590-05FF,U+FB1D-FB4F', local: ['Noto Sans Hebrew', 'Arial Hebrew', 'Segoe UI'] },
  {
    id: 'devanagari',
    range: 'U+0900-097F,U+A8E0-A8FF',
    local: ['Noto Sans Devanagari', 'Kohinoor Devanagari', 'Nirmala UI'],
  },
  { id: 'bengali', range: 'U+0980-09FF', local: ['Noto Sans Bengali', 'Kohinoor Bangla', 'Nirmala UI'] },
  { id: 'tamil', range: 'U+0B80-0BFF', local: ['Noto Sans Tamil', 'Tamil Sangam MN', 'Nirmala UI'] },
  { id: 'thai', range: 'U+0E00-0E7F', local: ['Noto Sans Thai', 'Thonburi', 'Leelawadee UI'] },
  { id: 'georgian', range: 'U+10A0-10FF,U+1C90-1CBF,U+2D00-2D2F', local: ['Noto Sans Georgian', 'Sylfaen'] },
  { id: 'armenian', range: 'U+0530-058F,U+FB13-FB17', local: ['Noto Sans Armenian', 'Sylfaen'] },
  {
    id: 'kr',
    range: 'U+1100-11FF,U+3130-318F,U+AC00-D7AF',
    local: ['Noto Sans KR', 'Noto Sans CJK KR', 'Apple SD Gothic Neo', 'Malgun Gothic'],
  },
  {
    id: 'jp',
    range: 'U+3040-30FF,U+31F0-31FF',
    local: ['Noto Sans JP', 'Noto Sans CJK JP', 'Hiragino Sans', 'Yu Gothic', 'Meiryo'],
  },
  {
    id: 'sc',
    range: 'U+2E80-2FDF,U+3000-303F,U+3400-4DBF,U+4E00-9FFF,U+F900-FAFF,U+FF00-FFEF',
    local: ['Noto Sans SC', 'Noto Sans CJK SC', 'PingFang SC', 'Microsoft YaHei'],
  },
];

const FAMILY = '"certsvc names"';

export const FONT_STACK = `${FAMILY},system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif`;

/** @font-face rules for names in other scripts, the bundled fonts served under `base` (ending in /). */
export function nameFontFaces(base: string): string {
  return scripts
    .flatMap(({ id, range, local }) =>
      [400, 700].map((weight) => {
        const src = [...local.map((name) => `local("${name}")`), `url(${base}noto-${id}-${weight}.ttf)`];
        return `@font-face{font-family:${FAMILY};src:${src.join(',')};font-weight:${weight};font-display:swap;unicode-range:${range}}`;
      }),
    )
    .join('\n');
}

const servable = new Set(scripts.flatMap(({ id }) => [`noto-${id}-400.ttf`, `noto-${id}-700.ttf`]));

/** The file behind a font URL (`noto-arabic-400.ttf`), or undefined for any other name. */
export function nameFontFile(file: string): string | undefined {
  if (!servable.has(file)) return undefined;
  return bundledFacePath(bundledFace(file.slice(0, -'.ttf'.length)));
}
