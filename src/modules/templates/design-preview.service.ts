import { createHash } from 'node:crypto';
import type { Design } from '../../pdf/design.schema.js';
import { sampleValues, type PdfRenderer, type RenderValues } from '../../pdf/pdf-renderer.js';
import { SAMPLE_CODE } from '../../pdf/sample-values.js';
import { issueLine } from '../../pdf/element-labels.js';
import { ValidationError, type Issue } from '../../platform/errors.js';
import { verificationUrl } from '../shared/certificate-links.js';
import { DATA_VALUE_MAX_LENGTH, NAME_MAX_LENGTH } from '../../platform/limits.js';

// Previews of a design, saved or not, with sample values that people may replace with their own
// (the studio's sample panel). Rendered by the very renderer that freezes certificates, so a
// preview has the bytes an issue would freeze, but for the code, the date (and the signature).
// Nothing is stored or counted.

export interface SampleInput {
  recipientName?: string;
  data?: Record<string, string>;
}

const CACHED = 32;

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

export function createDesignPreviewService(deps: { renderer: () => PdfRenderer; publicBaseUrl: string }) {
  const cache = new Map<string, Promise<Buffer>>();

  // The sample values, with each value that people typed in place of the default; an empty input
  // keeps the default. Held to the API's lengths.
  function values(design: Design, input: SampleInput = {}): RenderValues {
    const sample = sampleValues(design);
    const issues: Issue[] = [];
    const name = input.recipientName?.trim();
    if (name && [...name].length > NAME_MAX_LENGTH)
      issues.push({ path: ['recipientName'], message: `must be at most ${NAME_MAX_LENGTH} characters` });
    const data = { ...sample.data };
    for (const field of design.fields) {
      if (field.type === 'list') continue; // its sample rows (sample-values.ts) are not typed in
      const value = input.data?.[field.key]?.trim();
      if (!value) continue;
      if ([...value].length > DATA_VALUE_MAX_LENGTH)
        issues.push({
          path: ['data', field.key],
          message: `must be at most ${DATA_VALUE_MAX_LENGTH} characters`,
        });
      data[field.key] = value;
    }
    if (issues.length > 0) throw new ValidationError(issues, 'The sample values are too long');
    return {
      ...sample,
      recipientName: name || sample.recipientName,
      verificationUrl: verificationUrl(deps.publicBaseUrl, SAMPLE_CODE),
      data,
    };
  }

  return {
    values,

    async render(design: Design, input?: SampleInput): Promise<Buffer> {
      const filled = values(design, input);
      const version = digest(design);
      const key = digest([version, { ...filled, issuedAt: filled.issuedAt.slice(0, 10) }]);
      let pdf = cache.get(key);
      if (!pdf) {
        pdf = deps
          .renderer()
          .render({ id: 'design-preview', version, design }, [filled])
          .then(([outcome]) => {
            if (!outcome?.ok) {
              const issues = outcome?.issues ?? [];
              const what = issues.map(issueLine).join('; ');
              throw new ValidationError(issues, `The sample values cannot be rendered: ${what}`);
            }
            return outcome.pdf;
          });
        pdf.catch(() => cache.delete(key));
        if (cache.size >= CACHED) cache.delete(cache.keys().next().value!);
        cache.set(key, pdf);
      }
      return pdf;
    },
  };
}

export type DesignPreviewService = ReturnType<typeof createDesignPreviewService>;
