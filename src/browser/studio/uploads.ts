import type { ImageElement } from '../../pdf/design.schema.js';
import { onShownPage, shownPage } from './pages.js';
import type { Studio } from './context.js';
import { studioFontName } from './fonts.js';
import { boxOf } from './geometry.js';
import { placeImage } from './placement.js';

// Uploads: the service checks and decodes the file and answers its data URL; the design takes it
// like any other change (undo works). A refusal is said under the page, and nothing changes.

interface Uploaded {
  src: string;
  width?: number;
  height?: number;
  family?: string | null;
  bold?: boolean;
}

export async function upload(studio: Studio, file: File, kind: string): Promise<Uploaded | undefined> {
  const body = new FormData();
  body.append('_csrf', studio.csrf);
  body.append('kind', kind === 'font' ? 'font' : 'image');
  body.append('file', file);
  const base = (studio.root.dataset.previewUrl ?? '').replace(/preview\.pdf$/, '');
  const res = await fetch(`${base}uploads`, { method: 'POST', credentials: 'same-origin', body });
  if (!res.ok) {
    const page = new DOMParser().parseFromString(await res.text(), 'text/html');
    const message = page.getElementById('error-message')?.textContent ?? `error ${res.status}`;
    studio.status.textContent = `Not added: ${message}`;
    studio.area.dataset.upload = 'refused';
    return undefined;
  }
  studio.area.dataset.upload = 'done';
  return (await res.json()) as Uploaded;
}

export async function replaceImage(studio: Studio, e: ImageElement, file: File): Promise<void> {
  const up = await upload(studio, file, 'image');
  if (up) studio.state.commit(() => (e.src = up.src));
}

// What an upload adds: a background image, a font, or an image element.
function added(studio: Studio, kind: string, up: Uploaded): void {
  const { state } = studio;
  const design = state.design;
  if (kind === 'background') {
    state.commit(() => (design.background = { ...(design.background ?? {}), image: up.src }));
  } else if (kind === 'font') {
    // Named after its family and weight, so that a regular and a bold upload of one family are
    // one family in the font select, in two weights.
    const taken = [...studio.fonts, ...(design.fonts ?? []).map((f) => f.name)];
    const name = studioFontName(up.family, up.bold === true, taken);
    studio.fonts.push(name);
    // A bold font falls back on bold for the characters it lacks (and picks bold Noto fonts).
    const fallback = up.bold ? { fallback: 'sans-bold' as const } : {};
    state.commit(() => (design.fonts = [...(design.fonts ?? []), { name, src: up.src, ...fallback }]));
  } else {
    // At its natural proportions in the largest free area of the page shown, over no text.
    const page = shownPage();
    const boxes = design.elements
      .filter((e) => (e.page ?? 1) === page)
      .map((e) => ({ ...boxOf(e), text: e.type === 'text' }));
    const place = placeImage(design.page, boxes, (up.width ?? 1) / (up.height ?? 1));
    state.commit(() => design.elements.push(onShownPage({ type: 'image', src: up.src, ...place })));
    studio.select(design.elements.length - 1);
  }
}

/** The toolbar's file pickers (data-upload="image", "background" or "font"). */
export function wireUploads(studio: Studio): void {
  studio.root.querySelectorAll<HTMLInputElement>('input[data-upload]').forEach((picker) => {
    picker.addEventListener('change', async () => {
      const file = picker.files?.[0];
      if (!file) return;
      const kind = picker.dataset.upload ?? 'image';
      picker.value = '';
      const up = await upload(studio, file, kind);
      if (up) added(studio, kind, up);
    });
  });
}
