import type { DesignElement } from '../../pdf/design.schema.js';
import { pageOf, shownPage } from './pages.js';
import type { Studio } from './context.js';
import { boxOf } from './geometry.js';

// Errors where they are (issue 30, item 6): when the preview is refused (422, the design breaks),
// each element an issue points at is outlined on the canvas (data-testid="design-error") with the
// message beside it, and the last good render stays greyed under it (the canvas's data-state
// "error"), so that the canvas never passes off an old drawing as the current design's.

/** One problem of the design as the service names it: `path` from the design's root, 0-based. */
export interface PreviewIssue {
  path: (string | number)[];
  message: string;
}

/** Why the preview was refused: the whole message and the issues (none when not the design's). */
export interface PreviewRefusal {
  message: string;
  issues: PreviewIssue[];
}

/** What kind of element it is, as the Elements list calls it. */
export function elementKind(e: DesignElement): string {
  switch (e.type) {
    case 'text':
      return 'Text';
    case 'qr':
      return 'QR code';
    case 'image':
      return 'Image';
    case 'line':
      return 'Line';
    case 'signatory':
      return 'Signatory';
    case 'table':
      return 'Table';
    default:
      return 'Rectangle';
  }
}

/**
 * An issue's message for the element `i` (0-based) it names: "Text 6: …", numbered as the list
 * numbers (from 1), whatever the service's own wording (a leading name of the element is dropped).
 */
export function issueText(e: DesignElement, i: number, message: string): string {
  const own = message.replace(/^(?:elements\.\d+(?:\.\w+)*\s+|[A-Z][A-Za-z ]* \d+:\s*)/, '');
  return `${elementKind(e)} ${i + 1}: ${own}`;
}

/** The element an issue points at (its index), if any. */
export function issueElement(issue: PreviewIssue): number | undefined {
  const [first, index] = issue.path;
  return first === 'elements' && typeof index === 'number' ? index : undefined;
}

function isIssue(v: unknown): v is PreviewIssue {
  const o = v as { path?: unknown; message?: unknown } | null;
  return !!o && Array.isArray(o.path) && typeof o.message === 'string';
}

/** Reads a refused preview's answer: the JSON error envelope, or else the error page's message. */
export async function readRefusal(res: Response): Promise<PreviewRefusal> {
  const body = await res.text();
  if ((res.headers.get('content-type') ?? '').includes('application/json')) {
    try {
      const { error } = JSON.parse(body) as {
        error?: { message?: unknown; details?: { issues?: unknown } };
      };
      const issues = Array.isArray(error?.details?.issues) ? error.details.issues.filter(isIssue) : [];
      if (typeof error?.message === 'string') return { message: error.message, issues };
    } catch {
      // not the envelope: said below by its status
    }
    return { message: `error ${res.status}`, issues: [] };
  }
  const page = new DOMParser().parseFromString(body, 'text/html');
  return { message: page.getElementById('error-message')?.textContent ?? `error ${res.status}`, issues: [] };
}

const pct = (v: number, of: number) => `${(v / of) * 100}%`;

/**
 * Shows the refusal on the canvas: an outline and a message for each element named, the rest in the
 * status line. `issues` empty clears the outlines (a good render).
 */
export function showDesignErrors(studio: Studio, refusal: PreviewRefusal | undefined): void {
  const { area, state } = studio;
  let layer = area.querySelector<HTMLElement>('.design-errors');
  if (!layer) {
    layer = document.createElement('div');
    layer.className = 'design-errors';
    area.append(layer);
  }
  layer.replaceChildren();
  if (!refusal) return;
  const { width: pw, height: ph } = state.design.page;
  const lines: string[] = [];
  const shown = new Set<number>();
  for (const issue of refusal.issues) {
    const i = issueElement(issue);
    const e = i === undefined ? undefined : state.design.elements[i];
    if (i === undefined || !e) {
      lines.push(`${issue.path.join('.') || 'The design'}: ${issue.message}`);
      continue;
    }
    const text = issueText(e, i, issue.message);
    // An element on the other page is outlined when its page is shown; the status line says it.
    const elsewhere = pageOf(e) !== shownPage();
    lines.push(elsewhere ? `${text} (on page ${pageOf(e)})` : text);
    if (elsewhere) continue;
    if (shown.has(i)) {
      const note = layer.querySelector<HTMLElement>(`p[data-error-index="${i}"]`);
      if (note) note.textContent = `${note.textContent ?? ''}\n${text}`;
      continue;
    }
    shown.add(i);
    const b = boxOf(e);
    const outline = document.createElement('div');
    outline.className = 'design-error';
    outline.setAttribute('data-testid', 'design-error');
    outline.dataset.errorIndex = String(i);
    outline.style.left = pct(b.x, pw);
    outline.style.top = pct(b.y, ph);
    outline.style.width = pct(Math.max(b.w, 1), pw);
    outline.style.height = pct(Math.max(b.h, 1), ph);
    const note = document.createElement('p');
    note.className = 'design-error-message';
    note.dataset.errorIndex = String(i);
    note.textContent = text;
    // Beside the box, on the page: under it, or over it when it is in the page's lower part; from
    // its left side, but never starting past the page's middle (it would run off the page).
    note.style.left = pct(Math.min(Math.max(0, b.x), pw * 0.5), pw);
    if (b.y + b.h > ph * 0.7) note.style.bottom = pct(ph - Math.max(0, b.y), ph);
    else note.style.top = pct(Math.min(ph, b.y + b.h), ph);
    layer.append(outline, note);
  }
  studio.status.textContent = `The preview cannot be drawn: ${lines.length ? lines.join(' · ') : refusal.message}`;
}
