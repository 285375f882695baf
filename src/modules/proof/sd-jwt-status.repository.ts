import type { Queryable } from '../../platform/db/db.js';
import { FILL_LIMIT, LIST_SIZE, randomEntries } from './status-lists.repository.js';

// IETF Token Status Lists (token_status_lists, token_status_entries): one-bit revocation statuses
// for the SD-JWT VCs, beside the Bitstring lists of the Open Badges credentials and sized and filled
// like them (131,072 entries, a random free one, a list left for the next once half full). A
// certificate takes its entry when its first SD-JWT VC is issued; its later SD-JWT VCs reuse it.

export interface TokenStatusEntry {
  list: number;
  idx: number;
}

export async function entryOf(
  db: Queryable,
  accountId: string,
  certificateId: string,
): Promise<TokenStatusEntry | undefined> {
  const { rows } = await db.query<TokenStatusEntry>(
    'SELECT list, idx FROM token_status_entries WHERE certificate_id = $1 AND account_id = $2',
    [certificateId, accountId],
  );
  return rows[0];
}

// A free entry of the account's newest list with room (a new list when none has), taken for the
// certificate in the caller's transaction (or the one another transaction took for it first). The
// list row is locked: entries of one account are taken one at a time.
export async function takeEntry(
  db: Queryable,
  accountId: string,
  certificateId: string,
): Promise<TokenStatusEntry> {
  await db.query(
    `INSERT INTO token_status_lists (account_id, n, bits) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING`,
    [accountId, Buffer.alloc(LIST_SIZE / 8)],
  );
  const { rows } = await db.query<{ n: number; used: number }>(
    'SELECT n, used FROM token_status_lists WHERE account_id = $1 ORDER BY n DESC LIMIT 1 FOR UPDATE',
    [accountId],
  );
  // Another transaction that took the certificate's entry meanwhile held this lock until it
  // committed: its entry is read now (each statement sees what was committed before it began).
  const taken = await entryOf(db, accountId, certificateId);
  if (taken) return taken;
  let { n } = rows[0]!;
  if (rows[0]!.used >= FILL_LIMIT) {
    n += 1;
    await db.query('INSERT INTO token_status_lists (account_id, n, bits) VALUES ($1, $2, $3)', [
      accountId,
      n,
      Buffer.alloc(LIST_SIZE / 8),
    ]);
  }
  for (;;) {
    const candidates = randomEntries(8);
    const { rows: free } = await db.query<{ i: number }>(
      `SELECT i FROM unnest($3::int[]) AS i
        WHERE NOT EXISTS (SELECT 1 FROM token_status_entries
                           WHERE account_id = $1 AND list = $2 AND idx = i) LIMIT 1`,
      [accountId, n, candidates],
    );
    if (!free[0]) continue;
    const entry = { list: n, idx: free[0].i };
    await db.query(
      'INSERT INTO token_status_entries (certificate_id, account_id, list, idx) VALUES ($1, $2, $3, $4)',
      [certificateId, accountId, entry.list, entry.idx],
    );
    await db.query('UPDATE token_status_lists SET used = used + 1 WHERE account_id = $1 AND n = $2', [
      accountId,
      n,
    ]);
    return entry;
  }
}

// Sets the certificate's bit (none: no SD-JWT VC was issued for it), in the revocation's
// transaction. PostgreSQL's set_bit counts from the least significant bit of each byte, as the
// Token Status List does.
export async function revokeTokenStatus(
  db: Queryable,
  accountId: string,
  certificateId: string,
): Promise<void> {
  await db.query(
    `UPDATE token_status_lists l SET bits = set_bit(l.bits, e.idx, 1), updated_at = now()
       FROM token_status_entries e
      WHERE e.certificate_id = $1 AND e.account_id = $2 AND l.account_id = e.account_id AND l.n = e.list`,
    [certificateId, accountId],
  );
}

export async function readTokenStatusList(
  db: Queryable,
  accountId: string,
  n: number,
): Promise<{ bits: Buffer; updatedAt: Date } | undefined> {
  const { rows } = await db.query<{ bits: Buffer; updated_at: Date }>(
    'SELECT bits, updated_at FROM token_status_lists WHERE account_id = $1 AND n = $2',
    [accountId, n],
  );
  return rows[0] && { bits: rows[0].bits, updatedAt: rows[0].updated_at };
}

/** What an SD-JWT VC says of a certificate. */
export interface SdJwtSubject {
  status: 'Draft' | 'Issued' | 'Revoked';
  recipientName: string;
  title: string;
  issuerName: string;
  issuedAt: Date | null;
  expiresAt: Date | null;
  /** The expiry day as given at issue (YYYY-MM-DD), when it was. */
  expiresOn: string | null;
}

const SUBJECT_COLUMNS = 'status, recipient_name, title, issuer_name, issued_at, expires_at, expires_on::text';

interface SubjectRow {
  status: SdJwtSubject['status'];
  recipient_name: string;
  title: string;
  issuer_name: string;
  issued_at: Date | null;
  expires_at: Date | null;
  expires_on: string | null;
}

function subjectOf(r: SubjectRow): SdJwtSubject {
  return {
    status: r.status,
    recipientName: r.recipient_name,
    title: r.title,
    issuerName: r.issuer_name,
    issuedAt: r.issued_at,
    expiresAt: r.expires_at,
    expiresOn: r.expires_on,
  };
}

/** The account's current SD-JWT key as subjectWithEntry reads it (sd-jwt-keys.repository.ts). */
export interface CurrentKeyRow {
  id: string;
  private_key: Buffer;
}

// The usual SD-JWT VC in one round trip (a single statement, its own transaction): the certificate
// locked against a revocation as lockSubject does, and its entry, the one it has or, when it may be
// issued at $3, a free one of the account's newest list with room taken now (8 random candidates,
// as takeEntry). A list locked meanwhile by another taker is read as of the statement's start, so
// an entry that taker committed may look free: the insert then finds the conflict and takes
// nothing. No entry (no list yet, the newest full, no candidate free, a conflict): entry undefined,
// and the caller takes one in a transaction of its own (takeEntry).
// `flush: 'later'`: the statement commits without waiting for its WAL to reach the disk
// (synchronous_commit off for its own transaction), for a caller whose next write commits
// synchronously before the entry is used (a claim's record, claims.repository.ts): PostgreSQL flushes
// the WAL in order, so that flush makes this commit durable too.
// The account's current SD-JWT key comes with it, when it has one (made on first use elsewhere).
export async function subjectWithEntry(
  db: Queryable,
  input: { accountId: string; certificateId: string; now: Date; flush?: 'now' | 'later' },
): Promise<
  { subject: SdJwtSubject; entry: TokenStatusEntry | undefined; key: CurrentKeyRow | undefined } | undefined
> {
  const later = input.flush === 'later';
  const { rows } = await db.query<
    SubjectRow & {
      list: number | null;
      idx: number | null;
      key_id: string | null;
      private_key: Buffer | null;
    }
  >({
    name: later ? 'sd-jwt-subject-with-entry-flush-later' : 'sd-jwt-subject-with-entry',
    text: `WITH subject AS (
  SELECT ${SUBJECT_COLUMNS} FROM certificates WHERE id = $1 AND account_id = $2 FOR SHARE
), existing AS (
  SELECT list, idx FROM token_status_entries WHERE certificate_id = $1 AND account_id = $2
), newest AS (
  SELECT n FROM token_status_lists WHERE account_id = $2 AND used < ${FILL_LIMIT}
     AND n = (SELECT max(n) FROM token_status_lists WHERE account_id = $2)
     AND NOT EXISTS (SELECT 1 FROM existing)
     AND EXISTS (SELECT 1 FROM subject WHERE status = 'Issued' AND (expires_at IS NULL OR expires_at > $3))
  FOR UPDATE
), free AS (
  SELECT newest.n, i FROM newest, unnest($4::int[]) AS i
   WHERE NOT EXISTS (SELECT 1 FROM token_status_entries e WHERE e.account_id = $2 AND e.list = newest.n AND e.idx = i)
   LIMIT 1
), taken AS (
  INSERT INTO token_status_entries (certificate_id, account_id, list, idx) SELECT $1, $2, n, i FROM free
  ON CONFLICT DO NOTHING RETURNING list, idx
), counted AS (
  UPDATE token_status_lists l SET used = used + 1 FROM taken WHERE l.account_id = $2 AND l.n = taken.list
)
SELECT subject.*, e.list, e.idx, k.id AS key_id, k.private_key
  FROM subject LEFT JOIN (SELECT * FROM existing UNION ALL SELECT * FROM taken) e ON true
  LEFT JOIN sd_jwt_keys k ON k.account_id = $2 AND k.retired_at IS NULL${
    later ? `\n WHERE set_config('synchronous_commit', 'off', true) = 'off'` : ''
  }`,
    values: [input.certificateId, input.accountId, input.now, randomEntries(8)],
  });
  const row = rows[0];
  if (!row) return undefined;
  const { list, idx, key_id: keyId, private_key: privateKey, ...subject } = row;
  return {
    subject: subjectOf(subject),
    entry: list === null || idx === null ? undefined : { list, idx },
    key: keyId === null || privateKey === null ? undefined : { id: keyId, private_key: privateKey },
  };
}

// The certificate, locked against a revocation until the caller's transaction ends: an entry taken
// for it is committed before a revocation reads it, or the revocation commits first and is seen.
export async function lockSubject(
  db: Queryable,
  accountId: string,
  certificateId: string,
): Promise<SdJwtSubject | undefined> {
  const { rows } = await db.query<SubjectRow>(
    `SELECT ${SUBJECT_COLUMNS} FROM certificates WHERE id = $1 AND account_id = $2 FOR SHARE`,
    [certificateId, accountId],
  );
  return rows[0] && subjectOf(rows[0]);
}
