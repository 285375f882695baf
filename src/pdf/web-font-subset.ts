import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// A font cut down to the characters of a short text, for a web page (@font-face): HarfBuzz's own
// subsetter (harfbuzzjs ships it as a WebAssembly module of its own, with no imports). Unlike the
// PDF writer's subsets (truetype-subset.ts), which keep only the glyphs already shaped, it keeps the
// layout tables (GSUB, GPOS) for the glyphs it keeps, so that a browser can still join Arabic
// letters and form Devanagari conjuncts. Each call instantiates the module afresh: its memory grows
// to hold the whole font (a CJK font is 10-15 MB) and goes with the instance, not kept by the server.

interface HbSubset {
  memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(ptr: number): void;
  hb_blob_create(data: number, length: number, mode: number, user: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_data(blob: number, length: number): number;
  hb_blob_get_length(blob: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_set_add(set: number, codepoint: number): void;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_unicode_set(input: number): number;
  hb_subset_or_fail(face: number, input: number): number;
}

const require = createRequire(import.meta.url);
let wasm: WebAssembly.Module | undefined;

const HB_MEMORY_MODE_WRITABLE = 2;

/** The font `fontBytes` (TrueType or OpenType) with only what draws the characters of `text`. */
export function subsetFontForText(fontBytes: Uint8Array, text: string): Uint8Array {
  wasm ??= new WebAssembly.Module(readFileSync(require.resolve('harfbuzzjs/dist/harfbuzz-subset.wasm')));
  const hb = new WebAssembly.Instance(wasm).exports as unknown as HbSubset;
  const at = hb.malloc(fontBytes.byteLength);
  new Uint8Array(hb.memory.buffer).set(fontBytes, at);
  const blob = hb.hb_blob_create(at, fontBytes.byteLength, HB_MEMORY_MODE_WRITABLE, 0, 0);
  const face = hb.hb_face_create(blob, 0);
  hb.hb_blob_destroy(blob);
  const input = hb.hb_subset_input_create_or_fail();
  if (!input) throw new Error('HarfBuzz could not start a subset');
  const unicodes = hb.hb_subset_input_unicode_set(input);
  for (const ch of new Set(text)) hb.hb_set_add(unicodes, ch.codePointAt(0)!);
  const subset = hb.hb_subset_or_fail(face, input);
  hb.hb_subset_input_destroy(input);
  if (!subset) throw new Error('HarfBuzz could not subset the font');
  const result = hb.hb_face_reference_blob(subset);
  const data = hb.hb_blob_get_data(result, 0);
  const length = hb.hb_blob_get_length(result);
  // The memory may have grown since `at` was written: a fresh view.
  const bytes = new Uint8Array(hb.memory.buffer).slice(data, data + length);
  hb.hb_blob_destroy(result);
  hb.hb_face_destroy(subset);
  hb.hb_face_destroy(face);
  hb.free(at);
  if (length === 0) throw new Error('HarfBuzz returned an empty font');
  return bytes;
}
