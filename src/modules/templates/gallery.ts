import { readFile } from 'node:fs/promises';
import type { Design } from '../../pdf/design.schema.js';

// The built-in starting designs of "New template" (issue 18), shipped as design files under
// examples/designs/ (dist/examples/designs/ once built: `npm run build` copies them). Each is a
// valid design, checked by test/pdf/design-issues.test.ts.
const DIR = new URL('../../../examples/designs/', import.meta.url);

export const GALLERY_SLUGS = [
  'course-completion',
  'event-attendance',
  'diploma-portrait',
  'minimal-modern',
] as const;

export interface GalleryDesign {
  slug: string;
  design: Design;
}

let loaded: Promise<GalleryDesign[]> | undefined;

export function galleryDesigns(): Promise<GalleryDesign[]> {
  loaded ??= Promise.all(
    GALLERY_SLUGS.map(async (slug) => ({
      slug,
      design: JSON.parse(await readFile(new URL(`${slug}.json`, DIR), 'utf8')) as Design,
    })),
  );
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

export async function galleryDesign(slug: string): Promise<GalleryDesign | undefined> {
  return (await galleryDesigns()).find((g) => g.slug === slug);
}
