import { performance } from 'node:perf_hooks';

// The per-instance cache of public verification (issue 34; docs/architecture.md, "Verification
// from a cache"). What cannot change about a certificate (the frozen part: the certificate as
// issued, its PDF hash, its credential, the issuer name it was issued under) is kept until the
// entry is pushed out (least recently used first, bounded in entries and bytes). What can change
// (the live part: status, revocation, supersession, the account's current name and page settings,
// the template's name) is served from the cache only while it is provably fresh:
// - within `ttlMs` of the moment its read was sent (the safety net: 750 ms, so that no answer is
//   more than 1 s behind a commit even with no notification at all), or
// - while the notification connection is confirmed: the triggers of migration 028 NOTIFY every
//   change on commit, and a heartbeat on the listening connection that started after a commit
//   returns only after that commit's notification was delivered (PostgreSQL sends notifications to
//   an idle listener before it answers its next query). So an entry is served past its TTL only
//   when a heartbeat that started less than `ttlMs` ago came back and no notification touched the
//   entry since its read began.
// Expiry is frozen (expires_at); whether it has passed is compared at serve time.

export interface FrozenPart {
  id: string;
  uniqueCode: string;
  accountId: string;
  templateId: string;
  recipientName: string;
  issuedAt: string;
  expiresAt: Date | null;
  expiresOn: string | null;
  title: string;
  issuerName: string;
  sha256: string;
  pdfSigned: boolean;
  /** The signed credential (frozen bytes); null until the certificate has one (backfill). */
  credential: Buffer | null;
  credentialSha256: string | null;
}

export interface LivePart {
  status: 'Issued' | 'Revoked';
  revokedAt: string | null;
  revocationReason: string | null;
  supersededByCode: string | null;
  templateName: string;
  issuerCurrentName: string;
  linkedinOrganizationId: string | null;
  publicDownload: boolean;
  defaultLanguage: string | null;
}

export interface CacheEntry {
  frozen: FrozenPart;
  live: LivePart;
  /** performance.now() when the read of the live part was sent. */
  readAt: number;
  /** A notification touched the entry after its read began: read the live part again. */
  stale: boolean;
  bytes: number;
}

export interface VerifyCacheOptions {
  maxEntries?: number;
  maxBytes?: number;
  ttlMs?: number;
  clock?: () => number;
}

export const DEFAULT_CACHE = { maxEntries: 20_000, maxBytes: 64 * 1024 * 1024, ttlMs: 750 };

// About what an entry holds in memory: its strings and the credential's bytes.
function sizeOf(frozen: FrozenPart, live: LivePart): number {
  let bytes = 600 + (frozen.credential?.length ?? 0);
  for (const value of [frozen.recipientName, frozen.title, frozen.issuerName, live.revocationReason]) {
    bytes += 2 * (value?.length ?? 0);
  }
  return bytes + 2 * (live.templateName.length + live.issuerCurrentName.length);
}

export function createVerifyCache(opts: VerifyCacheOptions = {}) {
  const maxEntries = opts.maxEntries ?? DEFAULT_CACHE.maxEntries;
  const maxBytes = opts.maxBytes ?? DEFAULT_CACHE.maxBytes;
  const ttlMs = opts.ttlMs ?? DEFAULT_CACHE.ttlMs;
  const clock = opts.clock ?? (() => performance.now());
  // Insertion order is recency: a hit moves its entry to the end; the oldest go first.
  const entries = new Map<string, CacheEntry>();
  let bytes = 0;
  // Counts the notifications: a read that began before one and ends after it is marked stale.
  let epoch = 0;
  // The start of the last heartbeat that came back on the listening connection (none: -Infinity),
  // and since when that connection listens (entries read before it may have missed a change).
  let confirmedAt = -Infinity;
  let listeningSince = Infinity;

  function remove(code: string) {
    const entry = entries.get(code);
    if (!entry) return;
    entries.delete(code);
    bytes -= entry.bytes;
  }

  return {
    /** Where a read starts: pass it to `store`. */
    begin(): { at: number; epoch: number } {
      return { at: clock(), epoch };
    },

    /** The entry of a code (most recently used now), fresh or not. */
    get(code: string): CacheEntry | undefined {
      const entry = entries.get(code);
      if (entry) {
        entries.delete(code);
        entries.set(code, entry);
      }
      return entry;
    },

    /** Whether the entry's live part may be served now. */
    fresh(entry: CacheEntry): boolean {
      if (entry.stale) return false;
      const now = clock();
      if (now - entry.readAt < ttlMs) return true;
      return now - confirmedAt < ttlMs && entry.readAt >= listeningSince;
    },

    store(code: string, frozen: FrozenPart, live: LivePart, read: { at: number; epoch: number }): CacheEntry {
      remove(code);
      const entry: CacheEntry = { frozen, live, readAt: read.at, stale: read.epoch !== epoch, bytes: 0 };
      entry.bytes = sizeOf(frozen, live);
      entries.set(code, entry);
      bytes += entry.bytes;
      for (const [key, value] of entries) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        entries.delete(key);
        bytes -= value.bytes;
      }
      return entry;
    },

    remove,

    /** A NOTIFY payload of migration 028: 'c:<code>', 'a:<account id>' or 't:<template id>'. */
    notified(payload: string) {
      epoch++;
      const id = payload.slice(2);
      if (payload.startsWith('c:')) {
        remove(id);
        return;
      }
      const field = payload.startsWith('a:')
        ? 'accountId'
        : payload.startsWith('t:')
          ? 'templateId'
          : undefined;
      for (const entry of entries.values()) {
        if (field === undefined || entry.frozen[field] === id) entry.stale = true;
      }
    },

    /** A heartbeat sent at `at` came back on the listening connection. */
    confirmed(at: number) {
      confirmedAt = Math.max(confirmedAt, at);
    },

    /** The listening connection listens from `at` on (a new connection). */
    listening(at: number) {
      epoch++;
      listeningSince = at;
      confirmedAt = -Infinity;
    },

    /** The listening connection is gone: only the TTL holds until a new one listens. */
    lost() {
      epoch++;
      confirmedAt = -Infinity;
      listeningSince = Infinity;
    },

    clock,
    get size() {
      return { entries: entries.size, bytes };
    },
  };
}

export type VerifyCache = ReturnType<typeof createVerifyCache>;
