import type { Db } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { checkedCode } from '../shared/certificate-links.js';
import type { Verification } from './verify.schemas.js';
import pino, { type Logger } from 'pino';
import { findForVerification, findLive, findPreviewPdf, findPublicPdf } from './verify.repository.js';
import { createVerifyCache, type CacheEntry, type VerifyCacheOptions } from './verify-cache.js';
import { startVerifyListener, type VerifyListener } from './verify-listener.js';
import { createVerificationCounter } from './verification-counter.js';
import { credentialOf, frozenOf, liveOf, viewOf, type PageExtras } from './verify.view.js';
import { createPreviewImages, type PreviewImages } from './preview-image.js';

export type { PageExtras } from './verify.view.js';

// Public verification: never the email, the data or internal ids. Draft certificates are not found.
// Answers come from the per-instance cache (verify-cache.ts; its listener, verify-listener.ts) and
// verifications are counted in memory and written in batches (verification-counter.ts).
export function createVerifyService(deps: {
  db: Db;
  publicBaseUrl: string;
  now: () => Date;
  logger?: Logger;
  previews?: PreviewImages;
  cache?: VerifyCacheOptions & { heartbeatMs?: number; countIntervalMs?: number };
}) {
  const previews = deps.previews ?? createPreviewImages();
  const logger = deps.logger ?? pino({ level: 'silent' });
  const cache = createVerifyCache(deps.cache);
  const counter = createVerificationCounter({ db: deps.db, logger, intervalMs: deps.cache?.countIntervalMs });
  let listener: VerifyListener | undefined;
  let closed = false;
  const loading = new Map<string, Promise<CacheEntry | undefined>>();
  // The answer of an entry, made once while the entry and whether it has expired stay the same (a
  // refresh stores a new entry): routes may keep what they make of it (verify.routes.ts).
  const views = new WeakMap<CacheEntry, Verification & PageExtras>();
  function answerOf(entry: CacheEntry): Verification & PageExtras {
    const now = deps.now();
    const expiresAt = entry.frozen.expiresAt;
    const expired = expiresAt !== null && expiresAt.getTime() <= now.getTime();
    let view = views.get(entry);
    if (view === undefined || view.expired !== expired) {
      view = viewOf(entry, deps.publicBaseUrl, now);
      views.set(entry, view);
    }
    return view;
  }

  async function load(code: string): Promise<CacheEntry | undefined> {
    const read = cache.begin();
    const row = await findForVerification(deps.db.pool, code);
    if (!row) return undefined;
    return cache.store(code, frozenOf(row), liveOf(row), read);
  }

  async function refresh(code: string, entry: CacheEntry): Promise<CacheEntry | undefined> {
    const read = cache.begin();
    const row = await findLive(deps.db.pool, entry.frozen.id, entry.frozen.credential === null);
    if (!row) {
      cache.remove(code);
      return undefined;
    }
    const frozen = row.credential ? { ...entry.frozen, ...credentialOf(row.credential) } : entry.frozen;
    return cache.store(code, frozen, liveOf(row), read);
  }

  // The cached entry of a code, its live part read again when it may be stale; concurrent misses
  // of one code share one read.
  async function entryOf(code: string): Promise<CacheEntry | undefined> {
    if (!listener && !closed)
      listener = startVerifyListener({ db: deps.db, cache, logger, heartbeatMs: deps.cache?.heartbeatMs });
    const entry = cache.get(code);
    if (entry && cache.fresh(entry)) return entry;
    let pending = loading.get(code);
    if (!pending) {
      pending = entry ? refresh(code, entry) : load(code);
      loading.set(code, pending);
      const done = () => loading.delete(code);
      pending.then(done, done);
    }
    return pending;
  }

  return {
    // The link preview image (og:image): the first page of the frozen PDF as a PNG, made once per
    // PDF (preview-image.ts); offered exactly when the page offers "Download PDF", else not found.
    async previewPng(input: string): Promise<{ png: Buffer; sha256: string }> {
      const code = checkedCode(input);
      const row = await findPreviewPdf(deps.db.pool, code, false);
      if (!row) throw new NotFoundError('Preview');
      const cached = previews.cached(row.sha256);
      if (cached) return { png: cached, sha256: row.sha256 };
      const withPdf = await findPreviewPdf(deps.db.pool, code, true);
      if (!withPdf?.pdf) throw new NotFoundError('Preview');
      return { png: await previews.pngOf(withPdf.sha256, withPdf.pdf), sha256: withPdf.sha256 };
    },

    // The frozen PDF for anyone with the code, unless the account turned public download off or
    // the certificate was revoked: both read as not found. `count` is false for HEAD.
    async publicPdf(input: string, opts: { count: boolean }) {
      const row = await findPublicPdf(deps.db.pool, checkedCode(input), opts.count);
      if (!row) throw new NotFoundError('PDF');
      return { uniqueCode: row.unique_code, pdf: row.pdf, sha256: row.sha256 };
    },

    // The signed credential by public code (frozen bytes, cached); undefined when it has none.
    async credential(input: string): Promise<Buffer | undefined> {
      const entry = await entryOf(checkedCode(input));
      return entry?.frozen.credential ?? undefined;
    },

    // `count` is false for HEAD: only real verifications count, once each, when answered.
    // credentialSha256 (the page's drop zone) and the account's page settings are for the page;
    // the JSON answer's schema leaves them out. The answer is shared: callers do not change it.
    async verify(input: string, opts: { count?: boolean } = {}): Promise<Verification & PageExtras> {
      const entry = await entryOf(checkedCode(input));
      if (!entry) throw new NotFoundError('Certificate');
      if (opts.count !== false) counter.add(entry.frozen.id);
      return answerOf(entry);
    },

    /** What the cache holds now (entries, about how many bytes). */
    cacheSize: () => cache.size,

    /** Resolves once every verification this instance answered so far is in the database. */
    flushCounts: () => counter.flush(),

    // The graceful shutdown (after the HTTP server drained): the last counts, then the listener.
    async close() {
      closed = true;
      await counter.close();
      await listener?.close();
    },
  };
}

export type VerifyService = ReturnType<typeof createVerifyService>;
