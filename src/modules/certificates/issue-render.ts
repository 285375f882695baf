import type { Issue } from '../../platform/errors.js';
import type { PdfRenderer, UnsealedPdf } from '../../pdf/pdf-renderer.js';
import type { TemplateWithDesign } from '../templates/templates.repository.js';
import type { Candidate } from './issue-plan.js';

// The rendering of an issue: each planned certificate's PDF, left for sealing (the proof service
// seals it once its credential is signed).

export interface Rendered extends Candidate {
  unsealed: UnsealedPdf;
}

// Renders candidates in order until `wanted` PDFs exist (or none are left); a candidate whose
// text cannot be rendered becomes a validation failure (at `prefixOf(candidate)`) and does not use
// quota. `untried`: the candidates left once `wanted` were rendered.
export async function renderUpTo(
  // Called only when there is something to render: a batch of invalid rows starts no render thread.
  renderer: () => PdfRenderer,
  template: TemplateWithDesign,
  candidates: Candidate[],
  wanted: number,
  prefixOf: (c: Candidate) => (string | number)[],
): Promise<{ rendered: Rendered[]; failures: Map<number, Issue[]>; untried: Candidate[] }> {
  const rendered: Rendered[] = [];
  const failures = new Map<number, Issue[]>();
  let cursor = 0;
  // updated_at moves with every design change (migration 002): (id, updated_at) is the cache key.
  const renderTemplate = {
    id: template.id,
    version: template.updated_at.toISOString(),
    design: template.design,
  };
  while (rendered.length < wanted && cursor < candidates.length) {
    const slice = candidates.slice(cursor, cursor + (wanted - rendered.length));
    cursor += slice.length;
    const outcomes = await renderer().renderSealable(
      renderTemplate,
      slice.map((c) => c.values),
    );
    outcomes.forEach((outcome, i) => {
      const c = slice[i]!;
      if (outcome.ok) rendered.push({ ...c, unsealed: outcome.unsealed });
      else
        failures.set(
          c.index,
          outcome.issues.map((issue) => ({ ...issue, path: [...prefixOf(c), ...issue.path] })),
        );
    });
  }
  return { rendered, failures, untried: candidates.slice(cursor) };
}
