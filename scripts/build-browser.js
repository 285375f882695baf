// Part of `npm run build` (and of scripts/prepare.js): bundles the browser code of src/browser/ with
// esbuild into dist/browser/<name>-<HASH>.js and .css (the content's hash in the name, so the files
// are cached for a year) and writes dist/browser/manifest.json, which maps each name to its file.
// The server reads the manifest at startup (src/platform/http/browser-assets.ts).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist/browser');
// name: [entry, format]. The studio is a module (the page loads it with type="module" and it
// imports pdf.js from its own URL); the others are plain scripts.
const entries = {
  'studio.js': ['src/browser/studio/main.ts', 'esm'],
  'dashboard.js': ['src/browser/dashboard.ts', 'iife'],
  'verify.js': ['src/browser/verify.ts', 'iife'],
  'dashboard.css': ['src/browser/dashboard.css', undefined],
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const manifest = {};
for (const [name, [entry, format]] of Object.entries(entries)) {
  const result = await build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    write: false,
    minify: true,
    target: 'es2020',
    format,
    charset: 'utf8',
    logLevel: 'warning',
    outdir: out,
  });
  const text = result.outputFiles[0].contents;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 10).toUpperCase();
  const [base, ext] = name.split('.');
  const file = `${base}-${hash}.${ext}`;
  writeFileSync(path.join(out, file), text);
  manifest[name] = file;
}
writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
