import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

// The API reference at /docs: Swagger UI (npm swagger-ui-dist, served from node_modules, no CDN)
// reading the served /api/v1/openapi.json, so the page and the description are one document.
// Swagger UI sets inline style attributes, so this page alone allows inline styles; scripts come
// only from this origin (the start-up script is a file, not inline).

const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>certsvc API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/start.js"></script>
</body>
</html>
`;

const START = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: false,
  defaultModelsExpandDepth: 0,
});
`;

interface Asset {
  type: string;
  body: () => Buffer;
}

function file(name: string): () => Buffer {
  let bytes: Buffer | undefined;
  return () => (bytes ??= readFileSync(path.join(dist, name)));
}

const ASSETS: Record<string, Asset> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', body: file('swagger-ui.css') },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: file('swagger-ui-bundle.js') },
  'start.js': { type: 'text/javascript; charset=utf-8', body: () => Buffer.from(START) },
};

export function docsRoutes(app: FastifyInstance) {
  const options = { config: { access: { kind: 'anonymous' as const } }, schema: { hide: true } };
  app.get('/docs', options, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', DOCS_CSP)
      .header('Cache-Control', 'no-cache')
      .send(PAGE),
  );
  for (const [name, asset] of Object.entries(ASSETS)) {
    app.get(`/docs/${name}`, options, async (_request, reply) =>
      reply.type(asset.type).header('Cache-Control', 'public, max-age=3600').send(asset.body()),
    );
  }
}
