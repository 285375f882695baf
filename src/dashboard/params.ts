import type { MultipartValue } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { NotFoundError } from '../platform/errors.js';
import { UUID_PATTERN } from '../platform/ids.js';

// What the dashboard reads from a request: path ids, form fields (urlencoded or multipart) and page
// numbers. Rules about the values themselves live in the services, which every door calls.

const uuid = new RegExp(UUID_PATTERN);

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && uuid.test(value);
}

// A path id that is not an id is simply a page that does not exist.
export function pathId(request: FastifyRequest): string {
  const { id } = request.params as { id: string };
  if (!isUuid(id)) throw new NotFoundError('Page');
  return id.toLowerCase();
}

// The string fields of a form; a multipart field arrives as { type: 'field', value }.
export function form(request: FastifyRequest): Record<string, string> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v === 'string') out[k] = v;
    else if (v && typeof v === 'object' && (v as MultipartValue).type === 'field')
      out[k] = String((v as MultipartValue).value);
  }
  return out;
}

// Every value of a repeated field (checkboxes), strings only.
export function formList(request: FastifyRequest, name: string): string[] {
  const raw = ((request.body ?? {}) as Record<string, unknown>)[name];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((s): s is string => typeof s === 'string');
}

// A page number from the query: anything else is page 1.
export function pageNumber(value: unknown): number {
  const n = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : 1;
  return n >= 1 ? n : 1;
}

// A form's CSRF token: a urlencoded field, a multipart field ({ value }), or a header.
export function csrfToken(request: FastifyRequest): string {
  const field = (request.body as { _csrf?: string | { value?: string } } | undefined)?._csrf;
  const value = typeof field === 'object' ? field?.value : field;
  return value ?? String(request.headers['x-csrf-token'] ?? '');
}
