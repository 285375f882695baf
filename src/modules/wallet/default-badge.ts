import { escapeXml } from '../../platform/svg/xml-tokens.js';

// The badge of a template without a badge image of its own: a seal drawn from the design, in its
// colours (the largest text's colour for the ink, the page's background colour for the paper), with
// the template's name in the middle. An SVG this service writes, so nothing in it is untrusted but
// the name, which is escaped.

export interface BadgeLook {
  name: string;
  /** The design's text elements' colours and sizes (in any order). */
  texts: { color?: unknown; size?: unknown }[];
  background?: unknown;
}

const COLOR = /^#[0-9A-Fa-f]{6}$/;
const DEFAULT_INK = '#1F3A5F';

function inkOf(look: BadgeLook): string {
  let best: { color: string; size: number } | undefined;
  for (const t of look.texts) {
    const size = typeof t.size === 'number' ? t.size : 14;
    if (typeof t.color === 'string' && COLOR.test(t.color) && (!best || size > best.size)) {
      best = { color: t.color, size };
    }
  }
  // Black text is the default of every element: a seal in it looks like a stamp, so navy instead.
  return best && best.color.toUpperCase() !== '#000000' ? best.color : DEFAULT_INK;
}

// The name in at most three lines of about 16 characters, cut with an ellipsis past that.
export function sealLines(name: string): string[] {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && (line + ' ' + word).length > 16) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  if (lines.length > 3) {
    lines.length = 3;
    lines[2] = `${lines[2]!.slice(0, 15)}…`;
  }
  return lines.map((l) => (l.length > 20 ? `${l.slice(0, 19)}…` : l));
}

// The seal's scalloped rim: 36 points between two radii around (256, 256).
function rim(): string {
  const points: string[] = [];
  for (let i = 0; i < 72; i++) {
    const r = i % 2 === 0 ? 248 : 228;
    const a = (Math.PI * i) / 36;
    points.push(`${(256 + r * Math.sin(a)).toFixed(1)},${(256 - r * Math.cos(a)).toFixed(1)}`);
  }
  return points.join(' ');
}

export function defaultBadgeSvg(look: BadgeLook): string {
  const ink = inkOf(look);
  const paper =
    typeof look.background === 'string' && COLOR.test(look.background) ? look.background : '#FFFFFF';
  const lines = sealLines(look.name || 'Certificate');
  const size = lines.some((l) => l.length > 12) ? 34 : 42;
  const first = 256 - ((lines.length - 1) * size * 1.2) / 2;
  const text = lines
    .map(
      (l, i) =>
        `<text x="256" y="${(first + i * size * 1.2).toFixed(1)}" font-size="${size}">${escapeXml(l)}</text>`,
    )
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" width="512" height="512">` +
    `<title>${escapeXml(look.name)}</title>` +
    `<polygon points="${rim()}" fill="${ink}"/>` +
    `<circle cx="256" cy="256" r="196" fill="${paper}"/>` +
    `<circle cx="256" cy="256" r="180" fill="none" stroke="${ink}" stroke-width="4"/>` +
    `<g fill="${ink}" font-family="DejaVu Sans, Arial, sans-serif" font-weight="bold" text-anchor="middle" dominant-baseline="middle">${text}</g>` +
    `</svg>`
  );
}
