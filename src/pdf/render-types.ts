import type { Design } from './design.schema.js';

export type DataValue = string | number | boolean;

export interface RenderValues {
  recipientName: string;
  issuedAt: string; // ISO 8601
  /** ISO 8601; null or absent when the certificate does not expire ({{certificate.expiresAt}} prints nothing). */
  expiresAt?: string | null;
  uniqueCode: string;
  verificationUrl: string;
  data: Record<string, DataValue>;
}

/** Path relative to the recipient (`['name']`, `['data', 'course']`) or to the design. */
export interface RenderIssue {
  path: (string | number)[];
  message: string;
}

export type RenderOutcome = { ok: true; pdf: Buffer; sha256: string } | { ok: false; issues: RenderIssue[] };

/** A document waiting for its seal (pdf-seal.ts): the body and its objects' offsets. */
export interface UnsealedPdf {
  body: Buffer;
  offsets: number[];
  /** The first of the six sealing objects. */
  base: number;
}

export type SealableOutcome = { ok: true; unsealed: UnsealedPdf } | { ok: false; issues: RenderIssue[] };

export interface RenderTemplate {
  id: string;
  version: string; // changes whenever the design changes: (id, version) is the cache key
  design: Design;
}
