import { createHash } from 'node:crypto';
import { FONT_STACK, nameFontFaces } from '../modules/shared/name-fonts.js';
import { browserAsset } from '../platform/http/browser-assets.js';

// The dashboard's one stylesheet and one script, served from the service itself so that the pages'
// Content-Security-Policy allows 'self' and nothing inline. The URLs carry a digest of the content:
// they are cached for a year and change whenever the content does. The stylesheet is
// src/browser/dashboard.css (built into dist/browser/) after the parts generated here: the bundled
// name fonts, the body's font stack and the meters' widths.

const CSS = [
  nameFontFaces('/verify/fonts/'),
  `body{font:16px/1.5 ${FONT_STACK}}`,
  Array.from({ length: 21 }, (_, i) => `.meter .w${i * 5}{width:${i * 5}%}`).join(''),
  browserAsset('dashboard.css').body.toString('utf8'),
].join('\n');

// Its file name carries the hash of the whole stylesheet, generated parts included (decisions 24).
export const DASHBOARD_CSS = {
  body: CSS,
  file: `dashboard-${createHash('sha256').update(CSS).digest('hex').slice(0, 10).toUpperCase()}.css`,
};

/** The dashboard's script (src/browser/dashboard.ts), under its hashed name. */
export const DASHBOARD_SCRIPT_PATH = `/dashboard/assets/${browserAsset('dashboard.js').file}`;
