import type { Design } from './design.schema.js';

/** One item of a list field's value: a row of the table that shows the list. */
export type ListItem = Record<string, string | number>;

/** A recipient's data value: one value, or a list for a list field (decisions 24). */
export type DataValue = string | number | boolean | ListItem[];

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
  /** The trailer's file identifier (hex). */
  fileId: string;
}

export type SealableOutcome = { ok: true; unsealed: UnsealedPdf } | { ok: false; issues: RenderIssue[] };

export interface RenderTemplate {
  id: string;
  version: string; // changes whenever the design changes: (id, version) is the cache key
  design: Design;
}
