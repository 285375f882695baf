import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { browserAsset } from '../platform/http/browser-assets.js';

// The studio's script (src/browser/studio/, bundled by scripts/build-browser.js) and pdf.js (npm
// pdfjs-dist, served by the service itself: no CDN). The URLs carry the content's hash or pdf.js's
// version, so they are cached for a year. The script runs under the dashboard's CSP: nothing
// inline, no eval (pdf.js runs with isEvalSupported off).

const require = createRequire(import.meta.url);
const PDFJS_PACKAGE = require.resolve('pdfjs-dist/package.json');
const PDFJS_VERSION = (require('pdfjs-dist/package.json') as { version: string }).version;

function pdfjsFile(name: string) {
  let bytes: Promise<Buffer> | undefined;
  return {
    path: `/dashboard/assets/pdfjs/${PDFJS_VERSION}/${name}`,
    body: () => (bytes ??= readFile(path.join(path.dirname(PDFJS_PACKAGE), 'build', name))),
  };
}

export const PDFJS_FILES = { main: pdfjsFile('pdf.min.mjs'), worker: pdfjsFile('pdf.worker.min.mjs') };

export const STUDIO_SCRIPT_PATH = `/dashboard/assets/${browserAsset('studio.js').file}`;
