import type { Metrics } from '../platform/metrics.js';
import type { PdfRenderer } from './pdf-renderer.js';

// Every render, timed: one observation per request (one document, or the documents of a batch).
export function timedRenderer(renderer: PdfRenderer, metrics: Metrics): PdfRenderer {
  return {
    ...renderer,
    async render(template, items) {
      const stop = metrics.pdfRender.startTimer();
      try {
        return await renderer.render(template, items);
      } finally {
        stop();
        metrics.pdfsRendered.inc(items.length);
      }
    },
    async renderSealable(template, items) {
      const stop = metrics.pdfRender.startTimer();
      try {
        return await renderer.renderSealable(template, items);
      } finally {
        stop();
        metrics.pdfsRendered.inc(items.length);
      }
    },
  };
}
