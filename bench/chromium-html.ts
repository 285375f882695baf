import { createReadStream } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import QRCode from 'qrcode';
import {
  allBundledFaces,
  bundledFacePath,
  designFaces,
  fallbackFaceIds,
  fallbackStyle,
  type FontName,
} from '../src/pdf/font-catalog.js';
import type { Design } from '../src/pdf/design.schema.js';
import type { RenderValues } from '../src/pdf/pdf-renderer.js';

// The same design as HTML/CSS, for the usual HTML-to-PDF way (headless Chromium page.pdf()), with
// the same fonts: each bundled font is a web font named by its id, and every text lists the design
// font then the fallbacks its text calls for, as the renderer's chain does (font-catalog.ts).

/** Serves the page shell at / and the bundled fonts at /fonts/<id>.ttf on loopback. */
export async function startFontServer(design: Design): Promise<{ url: string; close(): Promise<void> }> {
  const faces = new Map(allBundledFaces.map((f) => [`/fonts/${f.id}.ttf`, bundledFacePath(f)]));
  const server = http.createServer((req, res) => {
    const file = faces.get(req.url ?? '');
    if (file) {
      res.writeHead(200, { 'content-type': 'font/ttf', 'cache-control': 'max-age=3600' });
      createReadStream(file).pipe(res);
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(shellHtml(design));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const fontFaces = allBundledFaces
  .map((f) => `@font-face{font-family:"${f.id}";src:url(/fonts/${f.id}.ttf) format("truetype")}`)
  .join('\n');

function fontFamily(font: FontName, text: string): string {
  const ids = [designFaces[font].id, ...fallbackFaceIds(text, fallbackStyle(font, undefined))];
  return ids.map((id) => `'${id}'`).join(',');
}

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
function shellHtml(design: Design): string {
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
        `<div style="${box}width:${e.width}pt;font-family:${fontFamily((e.font ?? 'sans') as FontName, fill(String(e.text), v))};font-size:${e.size ?? 14}pt;color:${e.color ?? '#000'};text-align:${e.align ?? 'left'};white-space:nowrap">${esc(fill(String(e.text), v))}</div>`,
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
