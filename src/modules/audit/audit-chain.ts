import { createHash } from 'node:crypto';
import type { Actor } from '../../platform/principal.js';

// The audit trail's chain (decisions 21): each event's hash is SHA-256 over the previous event's
// hash and the event's canonical JSON (RFC 8785); an account's first event chains from 32 zero
// bytes. The database appends (audit_append, migration 021); this file checks.

/** An event as the API serves it, and as it is hashed. */
export interface AuditEvent {
  id: string;
  occurredAt: string;
  actor: Actor;
  action: string;
  target: { type: string; id: string } | null;
  ip: string | null;
  requestId: string | null;
  changes: Record<string, unknown>;
}

export const ZERO_HASH = Buffer.alloc(32);

// RFC 8785 (JCS): object keys sorted by UTF-16 code units, no whitespace; ECMAScript's own
// serialisation of strings and numbers is the one the RFC names. The callbacks are module-level
// functions, not closures made per call: V8 drops a closure's optimised code at a full GC when no
// closure of it is alive, and compiled these again after every batch (docs/benchmarks.md).
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('not a finite number');
    const text = JSON.stringify(value);
    if (text === undefined) throw new Error(`cannot canonicalise ${typeof value}`);
    return text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(isDefined)
    .sort(byKey);
  return `{${entries.map(member).join(',')}}`;
}

type Entry = [string, unknown];
const isDefined = ([, v]: Entry) => v !== undefined;
const byKey = ([a]: Entry, [b]: Entry) => (a < b ? -1 : a > b ? 1 : 0);
const member = ([k, v]: Entry) => `${JSON.stringify(k)}:${canonicalJson(v)}`;

export function chainHash(prev: Buffer, event: AuditEvent): Buffer {
  return createHash('sha256').update(prev).update(canonicalJson(event), 'utf8').digest();
}

export interface ChainedEvent {
  seq: number;
  event: AuditEvent;
  prevHash: Buffer;
  hash: Buffer;
}

export type ChainCheck =
  | { ok: true; events: number }
  | { ok: false; events: number; broken: { id: string | null; seq: number; problem: string } };

// Walks an account's events in order of seq; the first event that does not follow from the one
// before it (edited, deleted, inserted or reordered) is named. `head` is the last seq and hash the
// account's head recorded, which finds a deleted tail.
export class ChainChecker {
  private expectedSeq = 1;
  private prev: Buffer = ZERO_HASH;
  private count = 0;
  private broken: Extract<ChainCheck, { ok: false }>['broken'] | undefined;

  add(row: ChainedEvent): boolean {
    if (this.broken) return false;
    const fail = (problem: string) => {
      this.broken = { id: row.event.id, seq: row.seq, problem };
      return false;
    };
    if (row.seq !== this.expectedSeq) {
      return fail(
        row.seq > this.expectedSeq
          ? `event ${this.expectedSeq} is missing (the next one is ${row.seq})`
          : `event ${row.seq} is out of order`,
      );
    }
    if (!row.prevHash.equals(this.prev)) return fail('does not chain from the event before it');
    if (!chainHash(this.prev, row.event).equals(row.hash)) return fail('was changed after it was written');
    this.prev = row.hash;
    this.expectedSeq += 1;
    this.count += 1;
    return true;
  }

  finish(head: { seq: number; hash: Buffer }): ChainCheck {
    if (!this.broken && (head.seq !== this.count || !head.hash.equals(this.prev))) {
      this.broken = {
        id: null,
        seq: this.count + 1,
        problem:
          head.seq > this.count
            ? `events ${this.count + 1} to ${head.seq} were deleted`
            : 'the chain does not end where the account’s head says',
      };
    }
    return this.broken
      ? { ok: false, events: this.count, broken: this.broken }
      : { ok: true, events: this.count };
  }
}
