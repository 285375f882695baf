import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

// Strong ETag over the serialised payload; a matching If-None-Match answers 304 with no body.
export function sendCacheable(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const etag = `"${createHash('sha256').update(JSON.stringify(payload)).digest('base64url').slice(0, 27)}"`;
  reply.header('ETag', etag);
  reply.header('Cache-Control', 'private, max-age=60');
  const inm = request.headers['if-none-match'];
  if (inm && ifNoneMatch(inm, etag)) return reply.code(304).send();
  return reply.send(payload);
}

// 304 with no body (not even "null"): the client keeps its copy.
export function notModified(reply: FastifyReply, etag: string, cacheControl: string): FastifyReply {
  return reply.header('ETag', etag).header('Cache-Control', cacheControl).code(304).send();
}

// Does an If-None-Match header match this strong ETag? (weak comparison, as for GET and HEAD)
export function ifNoneMatch(header: string, etag: string): boolean {
  const tags = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes(etag) || tags.includes('*');
}
