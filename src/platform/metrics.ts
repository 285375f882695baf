import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

// The process's Prometheus metrics (served at GET /metrics when METRICS_TOKEN is set). One registry
// per composition root, never prom-client's global one, so that several apps in one process (the
// tests) keep their own counts.

const SECONDS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(opts: { processMetrics?: boolean } = {}) {
  const registry = new Registry();
  const registers = [registry];
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to response, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: SECONDS,
      registers,
    }),
    certificatesIssued: new Counter({
      name: 'certsvc_certificates_issued_total',
      help: 'Certificates issued (single, batch, dashboard)',
      registers,
    }),
    pdfRender: new Histogram({
      name: 'certsvc_pdf_render_seconds',
      help: 'Time to render the PDFs of one request (one document, or the documents of a batch)',
      buckets: SECONDS,
      registers,
    }),
    pdfsRendered: new Counter({
      name: 'certsvc_pdfs_rendered_total',
      help: 'PDF documents rendered',
      registers,
    }),
    emailOutcomes: new Counter({
      name: 'certsvc_email_outcomes_total',
      help: 'Email delivery attempts by this process, by outcome (sent, retry, failed)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'certsvc_rate_limit_refusals_total',
      help: 'Requests refused with 429, by limiter (key, verify, anon)',
      labelNames: ['limiter'] as const,
      registers,
    }),
    /** A gauge whose value is read when Prometheus scrapes. */
    gauge<L extends string>(
      name: string,
      help: string,
      labelNames: L[],
      collect: (g: Gauge<L>) => Promise<void> | void,
    ) {
      return new Gauge<L>({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          await collect(this);
        },
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
