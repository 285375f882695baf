import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import QRCode from 'qrcode';
import type { Design } from '../src/pdf/design.schema.js';
import type { RenderValues } from '../src/pdf/pdf-renderer.js';

// The same design as HTML/CSS, for the usual HTML-to-PDF way (headless Chromium page.pdf()).

const require = createRequire(import.meta.url);
const fontDir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const FONT_FILES: Record<string, string> = {
  sans: 'DejaVuSans.ttf',
  'sans-bold': 'DejaVuSans-Bold.ttf',
  serif: 'DejaVuSerif.ttf',
  'serif-bold': 'DejaVuSerif-Bold.ttf',
};
const fontFaces = Object.entries(FONT_FILES)
  .map(
    ([name, file]) =>
      `@font-face{font-family:"${name}";src:url(data:font/ttf;base64,${readFileSync(path.join(fontDir, file)).toString('base64')})}`,
  )
  .join('\n');

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function fill(text: string, v: RenderValues): string {
  return text.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_m, key: string) => {
    if (key === 'recipient.name') return v.recipientName;
    if (key === 'certificate.issuedAt') return new Date(v.issuedAt).toUTCString().slice(5, 16);
    if (key === 'certificate.uniqueCode') return v.uniqueCode;
    if (key === 'certificate.verificationUrl') return v.verificationUrl;
    if (key.startsWith('data.')) return String(v.data[key.slice(5)] ?? '');
    return '';
  });
}

// The page shell with fonts, loaded once; then each document replaces only the page's content.
export function shellHtml(design: Design): string {
  const bg = design.background?.color ?? '#fff';
  return `<!doctype html><html><head><meta charset="utf-8"><style>${fontFaces}
@page{size:${design.page.width}pt ${design.page.height}pt;margin:0}
html,body{margin:0;padding:0}
.page{position:relative;width:${design.page.width}pt;height:${design.page.height}pt;background:${bg};overflow:hidden}
</style></head><body><div class="page"></div></body></html>`;
}

export async function designToHtml(design: Design, v: RenderValues): Promise<string> {
  const parts: string[] = [];
  for (const raw of design.elements as Record<string, unknown>[]) {
    const e = raw as Record<string, number & string>;
    const box = `position:absolute;left:${e.x}pt;top:${e.y}pt;`;
    if (e.type === 'text') {
      parts.push(
        `<div style="${box}width:${e.width}pt;font-family:'${e.font ?? 'sans'}';font-size:${e.size ?? 14}pt;color:${e.color ?? '#000'};text-align:${e.align ?? 'left'};white-space:nowrap">${esc(fill(String(e.text), v))}</div>`,
      );
    } else if (e.type === 'image') {
      parts.push(`<img style="${box}width:${e.width}pt;height:${e.height}pt" src="${e.src}">`);
    } else if (e.type === 'qr') {
      const svg = await QRCode.toString(v.verificationUrl, {
        type: 'svg',
        margin: 0,
        color: { dark: String(e.color ?? '#000000') },
      });
      parts.push(
        `<div style="${box}width:${e.size}pt;height:${e.size}pt">${svg.replace('<svg', '<svg width="100%" height="100%"')}</div>`,
      );
    } else if (e.type === 'rect') {
      const stroke = e.stroke ? `border:${e.strokeWidth ?? 1}pt solid ${e.stroke};` : '';
      parts.push(
        `<div style="${box}width:${e.width}pt;height:${e.height}pt;box-sizing:border-box;${stroke}background:${e.fill ?? 'transparent'}"></div>`,
      );
    }
  }
  return parts.join('');
}
