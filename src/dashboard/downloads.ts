import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ForbiddenError } from '../platform/errors.js';
import { zipStream, type ZipEntry } from '../platform/zip.js';

// The dashboard's downloads: the guard of those that count, and the answers of the ZIP and CSV files.

// Decisions section 25: dashboard downloads stay GETs and count each PDF as a download, so a link
// on another site must not be able to move an account's counters. The session cookie is
// SameSite=Lax, which a cross-site top-level navigation still carries; the browser's
// Sec-Fetch-Site header says where the request came from. Counted only when it is `same-origin`
// (a link or frame of the dashboard) or `none` (typed or bookmarked), or when there is no such
// header (curl, older browsers); any other value (`cross-site`, `same-site`, a repeated header) is
// refused before anything is read or counted.
const COUNTABLE_SITES = new Set(['same-origin', 'none']);

export function fromThisSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  return site === undefined || COUNTABLE_SITES.has(site);
}

export async function onlyFromThisSite(request: FastifyRequest): Promise<void> {
  if (!fromThisSite(request)) {
    throw new ForbiddenError(
      'This download was started from another site, so it was not made and nothing was counted. Open it from the dashboard.',
    );
  }
}

// The dashboard routes that count downloads: a certificate's PDF (`/certificates/:id/pdf`) and
// every ZIP of PDFs (`.../pdfs.zip`: a search, an upload's results, an import's results). Matched
// by path so that a new ZIP export named like the others is guarded without another line.
const COUNTS_DOWNLOADS = /\/(?:pdf|pdfs\.zip)$/;

// An onRoute hook of the dashboard: puts onlyFromThisSite before every other preHandler (signing in
// included) of each route that counts downloads.
export function guardDownloads(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.some((m) => m === 'GET' || m === 'HEAD') || !COUNTS_DOWNLOADS.test(route.url)) return;
  const rest = route.preHandler === undefined ? [] : [route.preHandler].flat();
  route.preHandler = [onlyFromThisSite, ...rest];
}

// A ZIP of PDFs (certificates.pdfEntries), streamed while it is read.
export function sendZip(reply: FastifyReply, fileName: string, entries: AsyncIterable<ZipEntry>) {
  return reply
    .header('Content-Disposition', `attachment; filename="${fileName}"`)
    .header('Cache-Control', 'private, no-store')
    .type('application/zip')
    .send(Readable.from(zipStream(entries)));
}

// A results CSV (a string, or read a page at a time).
export function sendCsv(reply: FastifyReply, fileName: string, body: string | AsyncIterable<string>) {
  return reply
    .header('Content-Disposition', `attachment; filename="${fileName}"`)
    .header('Cache-Control', 'private, no-store')
    .type('text/csv; charset=utf-8')
    .send(typeof body === 'string' ? body : Readable.from(body));
}
