import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as hb from 'harfbuzzjs';
import {
  bundledFace,
  bundledFacePath,
  designFaces,
  fallbackFaceIds,
  type FallbackStyle,
  type FontName,
} from './font-catalog.js';
import { parseTrueType, type TrueTypeFont } from './truetype-font.js';

export { fallbackStyle, fontNames, type FallbackStyle, type FontName } from './font-catalog.js';

// Font files are read once per process into SharedArrayBuffers: the main thread loads the ones a
// batch needs and hands them to the worker threads with the task (sharing, not copying, the bytes),
// and each thread parses a face once, when it first draws with it.

/** A font ready to draw with: parsed tables, and a HarfBuzz font when it is shaped. */
export interface Face {
  /** `dejavu-sans`, `noto-arabic-700`, or `custom-<n>-<hash>` for a design's own font. */
  id: string;
  font: TrueTypeFont;
  /** Undefined for fonts drawn by their cmap alone (CJK). */
  hb: hb.Font | undefined;
  /** For the PDF font descriptor (Serif flag, stem width). */
  serif: boolean;
  bold: boolean;
  /** Only for runs of this script, ahead of the element's bundled font (font-catalog.ts). */
  script: string | undefined;
  /** Its runs carry their text as /ActualText (Nastaliq's cascading baseline). */
  actualText: boolean;
  /**
   * A design font (DejaVu): shaping.ts lays out its ASCII words without HarfBuzz. Not the Noto
   * fonts, whose contextual lookups may change ASCII glyphs (Noto Serif Arabic's '.' in some words).
   */
  asciiFastPath: boolean;
}

const bytes = new Map<string, SharedArrayBuffer>();
const bundledIds = new Set<string>();
const faces = new Map<string, Face>();

function loadBytes(id: string): SharedArrayBuffer {
  let shared = bytes.get(id);
  if (!shared) {
    const data = readFileSync(bundledFacePath(bundledFace(id)));
    shared = new SharedArrayBuffer(data.length);
    new Uint8Array(shared).set(data);
    bytes.set(id, shared);
  }
  return shared;
}

/** Main thread: the bytes of these bundled faces, loaded once, to send to the workers. */
export function sharedFontBytes(ids: Iterable<string>): Record<string, SharedArrayBuffer> {
  const out: Record<string, SharedArrayBuffer> = {};
  for (const id of ids) out[id] = loadBytes(id);
  return out;
}

/** Worker thread: keeps the bytes the main thread sent, so no thread reads its own copy. */
export function adoptFontBytes(record: Record<string, SharedArrayBuffer>): void {
  for (const [id, shared] of Object.entries(record)) if (!bytes.has(id)) bytes.set(id, shared);
}

// HarfBuzz's objects free their memory (in its WebAssembly heap, which never shrinks and is capped at
// 2 GB) only when the garbage collector finalises them, and a small JavaScript heap rarely collects:
// a thread that parsed a few thousand distinct fonts (uploads, previews) ran out of that heap and
// every later shaping failed. After each task a thread calls releaseFaces(): once some faces were
// made since the last time, a full collection runs and their memory is reused.
let shapedFacesMade = 0;
const RELEASE_AFTER = 4;
let collect: (() => void) | undefined;

export function releaseFaces(): void {
  if (shapedFacesMade < RELEASE_AFTER) return;
  shapedFacesMade = 0;
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

// What a bundled face adds to a font's own options (font-catalog.ts).
interface BundledRole {
  script?: string | undefined;
  actualText?: boolean;
  asciiFastPath?: boolean;
}

// Every Face has all its fields, in one order, whatever it is: one object shape for the code that
// lays out and draws text (fields added afterwards made a shape per kind of face, and deopts).
export function makeFace(
  id: string,
  data: Uint8Array,
  opts: { shape: boolean; serif: boolean; bold: boolean },
  role: BundledRole = {},
): Face {
  const font = parseTrueType(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  // HarfBuzz copies the bytes into its own heap; it needs a plain (not shared) buffer.
  const hbFont = opts.shape ? new hb.Font(new hb.Face(new hb.Blob(data.slice()))) : undefined;
  // Only fonts that come and go count (a design's own, an upload's): the bundled ones are made once
  // per thread and kept.
  if (hbFont && !bundledIds.has(id)) shapedFacesMade++;
  return {
    id,
    font,
    hb: hbFont,
    serif: opts.serif,
    bold: opts.bold,
    script: role.script,
    actualText: role.actualText ?? false,
    asciiFastPath: role.asciiFastPath ?? false,
  };
}

export function bundledFont(id: string): Face {
  let face = faces.get(id);
  if (!face) {
    const meta = bundledFace(id);
    bundledIds.add(id);
    face = makeFace(
      id,
      new Uint8Array(loadBytes(id)),
      { shape: meta.shape, serif: meta.serif, bold: id.endsWith('bold') || id.endsWith('700') },
      {
        script: meta.script,
        actualText: meta.actualText ?? false,
        asciiFastPath: Object.values(designFaces).some((d) => d.id === id),
      },
    );
    faces.set(id, face);
  }
  return face;
}

/** The design font a text element names (bundled DejaVu). */
export function designFont(name: FontName): Face {
  return bundledFont(designFaces[name].id);
}

/**
 * The fonts that draw `text`, in the order they are tried: the element's own fonts (a design's
 * custom font, then the DejaVu style), then the Noto fallbacks the text's scripts call for, in the
 * element's family and weight (`style`, see font-catalog.ts).
 */
export function fontChain(own: Face[], text: string, style: FallbackStyle): Face[] {
  const ids = fallbackFaceIds(text, style);
  if (ids.length === 0) return own;
  const faces = ids.map(bundledFont);
  if (!faces.some(forOneScript)) return [...own, ...faces];
  // A face for one script (Nastaliq) goes before the bundled font; a design's own font stays first.
  const bundled = own[own.length - 1]!;
  return [...own.slice(0, -1), ...faces.filter(forOneScript), bundled, ...faces.filter(forAnyScript)];
}

// Module-level, not closures made per text: their optimised code outlives full GCs (docs/benchmarks.md).
const forOneScript = (f: Face) => Boolean(f.script);
const forAnyScript = (f: Face) => !f.script;
