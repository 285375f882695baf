import type { Queryable } from '../../platform/db/db.js';
import { containsPattern, searchFold } from './search-fold.js';
import type { DataValue } from '../../pdf/pdf-renderer.js';

export type CertificateStatus = 'Draft' | 'Issued' | 'Revoked';

export interface CertificateRow {
  id: string;
  account_id: string;
  template_id: string;
  unique_code: string;
  recipient_name: string;
  recipient_email: string;
  title: string;
  data: Record<string, DataValue>;
  status: CertificateStatus;
  issued_at: Date | null;
  expires_at: Date | null;
  /** The issuer's calendar day of the expiry (YYYY-MM-DD), when the issuer wrote it. */
  expires_on: string | null;
  revoked_at: Date | null;
  revocation_reason: string | null;
  download_count: number;
  email_count: number;
  verification_count: number;
  created_at: Date;
}

export interface NewCertificate {
  id: string;
  uniqueCode: string;
  recipientName: string;
  recipientEmail: string;
  title: string;
  data: Record<string, DataValue>;
  expiresAt?: Date | null;
  /** The issuer's calendar day of the expiry (YYYY-MM-DD), when the issuer wrote it. */
  expiresOn?: string | null;
  /** Renewal reminders still to send (days before expiry, in due order) and when the first is due. */
  reminders?: number[];
  nextReminderAt?: Date | null;
}

export interface FrozenPdf {
  certificateId: string;
  pdf: Buffer;
  sha256: string;
  /** The PDF signing certificate that sealed it. */
  signedBy: string;
}

export const CERT_COLUMNS =
  'id, account_id, template_id, unique_code, recipient_name, recipient_email, title, data, status, issued_at, expires_at, expires_on::text, revoked_at, revocation_reason, download_count, email_count, verification_count, created_at';

// Inserts issued certificates with one statement, inside the caller's transaction (which also
// holds the quota reservation and then freezes their PDFs: insertPdfs).
export async function insertIssued(
  tx: Queryable,
  input: {
    accountId: string;
    templateId: string;
    /** The version of the template's design the certificates were rendered from. */
    templateVersion: number;
    issuedAt: Date;
    /** The organisation's name they are issued under, frozen (absent: the account's name now). */
    issuerName?: string;
    items: NewCertificate[];
    /** Queued for email in the same transaction (emailOnIssue): they start at emailCount 1. */
    emailed?: boolean;
  },
): Promise<CertificateRow[]> {
  const { items } = input;
  const { rows } = await tx.query<CertificateRow>(
    `INSERT INTO certificates (id, account_id, template_id, unique_code, recipient_name, search_name, recipient_email, title, data, status, issued_at, created_at, expires_at, reminders, next_reminder_at, email_count, template_version, expires_on, issuer_name)
     SELECT u.id, $1, $2, u.code, u.name, u.folded, u.email, u.title, u.data::jsonb, 'Issued', $3, $3, u.expires,
            u.reminders::integer[], u.next_reminder, $14, $15, u.expires_on, $17
       FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::timestamptz[],
                   $12::text[], $13::timestamptz[], $16::date[])
         AS u(id, code, name, email, data, folded, title, expires, reminders, next_reminder, expires_on)
     RETURNING ${CERT_COLUMNS}`,
    [
      input.accountId,
      input.templateId,
      input.issuedAt,
      items.map((i) => i.id),
      items.map((i) => i.uniqueCode),
      items.map((i) => i.recipientName),
      items.map((i) => i.recipientEmail),
      items.map((i) => JSON.stringify(i.data)),
      items.map((i) => searchFold(i.recipientName)),
      items.map((i) => i.title),
      items.map((i) => i.expiresAt ?? null),
      // Each as an array literal: a parameter cannot carry an array of arrays of different lengths.
      items.map((i) => (i.reminders?.length ? `{${i.reminders.join(',')}}` : null)),
      items.map((i) => i.nextReminderAt ?? null),
      input.emailed ? 1 : 0,
      input.templateVersion,
      items.map((i) => i.expiresOn ?? null),
      input.issuerName ?? null,
    ],
  );
  const order = new Map(items.map((item, index) => [item.id, index]));
  return rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

// PDFs per INSERT statement. pg builds a statement's Bind message in one buffer that it replaces
// by one half as large again whenever it is full: for the 500 PDFs of a batch (about 20 MB) in one
// statement that was some 60 MB of buffers, and the server's peak memory (docs/benchmarks.md).
const PDFS_PER_STATEMENT = 50;

// The frozen PDFs of certificates being issued, in their issue's transaction.
export async function insertPdfs(tx: Queryable, pdfs: FrozenPdf[]): Promise<void> {
  // Buffers go to PostgreSQL as binary parameters (an array parameter would be sent as hex text,
  // doubling the memory of a 500-PDF batch).
  for (let start = 0; start < pdfs.length; start += PDFS_PER_STATEMENT) {
    const chunk = pdfs.slice(start, start + PDFS_PER_STATEMENT);
    const values = chunk
      .map((_, i) => `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`)
      .join(', ');
    await tx.query(
      `INSERT INTO certificate_pdfs (certificate_id, pdf, sha256, signed_by) VALUES ${values}`,
      chunk.flatMap((p) => [p.certificateId, p.pdf, p.sha256, p.signedBy]),
    );
  }
}

export interface ListFilter {
  status?: CertificateStatus;
  createdAfter?: Date;
  recipientEmail?: string;
  templateId?: string;
  q?: string;
  /** The certificate with this code (upper case). */
  uniqueCode?: string;
  /** Expired (true) or not (false) at `now`. */
  expired?: { value: boolean; now: Date };
  expiresBefore?: Date;
  limit: number;
  offset: number;
}

export type SearchFilter = Omit<ListFilter, 'limit' | 'offset'>;

// The WHERE clause of a list filter, with its parameters ($1 the account).
function filterCondition(accountId: string, filter: SearchFilter): { condition: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const where = ['account_id = $1'];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (filter.status) add((p) => `status = ${p}`, filter.status);
  if (filter.createdAfter) add((p) => `created_at > ${p}`, filter.createdAfter);
  if (filter.recipientEmail) add((p) => `lower(recipient_email) = lower(${p})`, filter.recipientEmail);
  if (filter.templateId) add((p) => `template_id = ${p}`, filter.templateId);
  if (filter.q) add((p) => `search_name LIKE ${p}`, containsPattern(filter.q));
  // One probe of the unique index on unique_code.
  if (filter.uniqueCode) add((p) => `unique_code = ${p}`, filter.uniqueCode);
  if (filter.expired?.value === true) add((p) => `expires_at <= ${p}`, filter.expired.now);
  if (filter.expired?.value === false)
    add((p) => `(expires_at IS NULL OR expires_at > ${p})`, filter.expired.now);
  if (filter.expiresBefore) add((p) => `expires_at < ${p}`, filter.expiresBefore);
  return { condition: where.join(' AND '), params };
}

// The ids of the newest `limit` certificates matching a list filter (the ZIP download).
export async function matchingIds(
  db: Queryable,
  accountId: string,
  filter: SearchFilter,
  limit: number,
): Promise<string[]> {
  const { condition, params } = filterCondition(accountId, filter);
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM certificates WHERE ${condition} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1}`,
    [...params, limit],
  );
  return rows.map((r) => r.id);
}

// The frozen PDFs of some certificates of the account (in the order of `ids`; those without a PDF
// left out), each counted as a download in the same statement.
export async function readPdfsCounted(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<{ id: string; unique_code: string; recipient_name: string; issued_at: Date; pdf: Buffer }[]> {
  const { rows } = await db.query<{
    id: string;
    unique_code: string;
    recipient_name: string;
    issued_at: Date;
    pdf: Buffer;
  }>(
    `WITH counted AS (
       UPDATE certificates c SET download_count = c.download_count + 1
         FROM certificate_pdfs p
        WHERE c.account_id = $1 AND c.id = ANY($2::uuid[]) AND p.certificate_id = c.id
        RETURNING c.id, c.unique_code, c.recipient_name, c.issued_at)
     SELECT counted.*, p.pdf FROM counted JOIN certificate_pdfs p ON p.certificate_id = counted.id`,
    [accountId, ids],
  );
  const order = new Map(ids.map((id, i) => [id, i]));
  return rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

// Newest first. The page's ids come from an index-only scan of the (account, [status,] created_at,
// id) index, and only those rows are read, so deep pages skip index entries rather than rows.
// The totals of the plain list and of the status and template filters are the counters in
// list_counts (kept by triggers in the writes' own transactions); createdAfter, recipientEmail and
// q count their matches through their indexes (migration 004: lower(email), the trigram index on the
// folded name; created_at in the account indexes), so their cost grows with the number of matches
// (docs/benchmarks.md).
export async function listCertificates(
  db: Queryable,
  accountId: string,
  filter: ListFilter,
): Promise<{ rows: CertificateRow[]; total: number }> {
  const { condition, params } = filterCondition(accountId, filter);
  const uncounted =
    filter.createdAfter ||
    filter.recipientEmail ||
    filter.q ||
    filter.uniqueCode ||
    filter.expired ||
    filter.expiresBefore;
  const [list, total] = await Promise.all([
    db.query<CertificateRow>(
      `SELECT ${CERT_COLUMNS} FROM certificates
        WHERE id IN (SELECT id FROM certificates WHERE ${condition}
                      ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2})
        ORDER BY created_at DESC, id DESC`,
      [...params, filter.limit, filter.offset],
    ),
    !uncounted
      ? countedTotal(db, accountId, counterLists(filter.status, filter.templateId))
      : db
          .query<{ n: number }>(`SELECT count(*)::int AS n FROM certificates WHERE ${condition}`, params)
          .then((r) => r.rows[0]!.n),
  ]);
  return { rows: list.rows, total };
}

const STATUSES: CertificateStatus[] = ['Draft', 'Issued', 'Revoked'];

// The list_counts lists whose sum is the total of a status and/or template filter (migrations 005
// and 008): 'certificates:<status>' and 'certificates:<status>:template:<template id>'.
function counterLists(status?: CertificateStatus, templateId?: string): string[] {
  return (status ? [status] : STATUSES).map(
    (s) => `certificates:${s}${templateId ? `:template:${templateId}` : ''}`,
  );
}

// The sum of an account's list counters (see migration 005).
export async function countedTotal(db: Queryable, accountId: string, lists: string[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT coalesce(sum(n), 0)::bigint AS n FROM list_counts WHERE account_id = $1 AND list = ANY($2)',
    [accountId, lists],
  );
  return rows[0]!.n;
}

export async function findCertificate(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<CertificateRow | undefined> {
  // Named: planned once per connection (GET /certificates/:id is the hottest authenticated read).
  const { rows } = await db.query<CertificateRow>({
    name: 'find-certificate',
    text: `SELECT ${CERT_COLUMNS} FROM certificates WHERE account_id = $1 AND id = $2`,
    values: [accountId, id],
  });
  return rows[0];
}

// Locks the certificate row until the caller's transaction ends (a send against a concurrent revoke).
export async function lockCertificate(
  tx: Queryable,
  accountId: string,
  id: string,
): Promise<Pick<CertificateRow, 'status' | 'recipient_email' | 'unique_code'> | undefined> {
  const { rows } = await tx.query<Pick<CertificateRow, 'status' | 'recipient_email' | 'unique_code'>>(
    'SELECT status, recipient_email, unique_code FROM certificates WHERE id = $1 AND account_id = $2 FOR UPDATE',
    [id, accountId],
  );
  return rows[0];
}

// The frozen PDF; counts a download atomically when `count` is set.
export async function readPdf(
  db: Queryable,
  accountId: string,
  id: string,
  count: boolean,
): Promise<{ uniqueCode: string; pdf: Buffer; sha256: string } | undefined> {
  const { rows } = await db.query<{ unique_code: string; pdf: Buffer; sha256: string }>(
    `WITH c AS (
       UPDATE certificates SET download_count = download_count + CASE WHEN $3 THEN 1 ELSE 0 END
        WHERE account_id = $1 AND id = $2 RETURNING id, unique_code
     )
     SELECT c.unique_code, p.pdf, p.sha256 FROM c JOIN certificate_pdfs p ON p.certificate_id = c.id`,
    [accountId, id, count],
  );
  const row = rows[0];
  return row && { uniqueCode: row.unique_code, pdf: row.pdf, sha256: row.sha256 };
}

export async function readPdfHash(db: Queryable, accountId: string, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ sha256: string }>(
    `SELECT p.sha256 FROM certificates c JOIN certificate_pdfs p ON p.certificate_id = c.id
      WHERE c.account_id = $1 AND c.id = $2`,
    [accountId, id],
  );
  return rows[0]?.sha256;
}

// Revokes an Issued certificate as superseded by its correction (`by`), in the reissue's transaction.
export async function supersede(
  tx: Queryable,
  input: { accountId: string; id: string; by: string; at: Date; reason: string },
): Promise<{ id: string } | undefined> {
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE certificates SET status = 'Revoked', revoked_at = $3, revocation_reason = $4, superseded_by = $5,
            reminders = NULL, next_reminder_at = NULL
      WHERE account_id = $1 AND id = $2 AND status = 'Issued'
      RETURNING id`,
    [input.accountId, input.id, input.at, input.reason, input.by],
  );
  return rows[0];
}

export async function revokeCertificate(
  db: Queryable,
  input: { accountId: string; id: string; at: Date; reason: string | null },
): Promise<CertificateRow | undefined> {
  const { rows } = await db.query<CertificateRow>(
    `UPDATE certificates SET status = 'Revoked', revoked_at = $3, revocation_reason = $4,
            reminders = NULL, next_reminder_at = NULL
      WHERE account_id = $1 AND id = $2 AND status = 'Issued'
      RETURNING ${CERT_COLUMNS}`,
    [input.accountId, input.id, input.at, input.reason],
  );
  return rows[0];
}

// The version of its template's design a certificate was issued from (null: issued before versions
// were recorded, migration 016).
export async function templateVersionOf(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<number | null> {
  const { rows } = await db.query<{ template_version: number | null }>(
    'SELECT template_version FROM certificates WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  return rows[0]?.template_version ?? null;
}
