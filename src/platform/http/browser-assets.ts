import { readFileSync } from 'node:fs';
import path from 'node:path';

// The browser code of src/browser/, bundled by scripts/build-browser.js into dist/browser/ with the
// content's hash in each file's name, and listed in dist/browser/manifest.json. Read once, when the
// server starts: a missing or partial build stops it with a clear message rather than failing later.

const DIR = path.resolve(import.meta.dirname, '../../../browser');

export type BrowserAssetName = 'studio.js' | 'dashboard.js' | 'verify.js' | 'dashboard.css';

export interface BrowserAsset {
  /** The file's name in dist/browser/, e.g. studio-3F2A9C1B0D.js. */
  file: string;
  body: Buffer;
  type: string;
}

function load(): Map<BrowserAssetName, BrowserAsset> {
  const manifestPath = path.join(DIR, 'manifest.json');
  let manifest: Record<string, string>;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, string>;
  } catch (err) {
    throw new Error(
      `certsvc: the browser files are not built (${manifestPath}: ${(err as Error).message}). ` +
        'Build them with `npm run build` (scripts/build-browser.js).',
    );
  }
  const assets = new Map<BrowserAssetName, BrowserAsset>();
  for (const name of ['studio.js', 'dashboard.js', 'verify.js', 'dashboard.css'] as const) {
    const file = manifest[name];
    if (!file || !/^[a-z]+-[0-9A-F]{8,}\.(js|css)$/.test(file)) {
      throw new Error(`certsvc: ${manifestPath} names no file for ${name}: run \`npm run build\` again.`);
    }
    let body: Buffer;
    try {
      body = readFileSync(path.join(DIR, file));
    } catch {
      throw new Error(`certsvc: ${path.join(DIR, file)} is missing: run \`npm run build\` again.`);
    }
    const type = name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
    assets.set(name, { file, body, type });
  }
  return assets;
}

const ASSETS = load();

export function browserAsset(name: BrowserAssetName): BrowserAsset {
  return ASSETS.get(name)!;
}

/** The asset whose hashed file name is `file`, among `names` (a route serves only its own). */
export function browserAssetByFile(file: string, names: BrowserAssetName[]): BrowserAsset | undefined {
  return names.map(browserAsset).find((a) => a.file === file);
}

/** How the hashed files are served: they never change under their name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
