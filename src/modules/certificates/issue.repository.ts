import type { Db, Queryable } from '../../platform/db/db.js';
import { uuidv7 } from '../../platform/ids.js';
import { insertCredentials, revokeCredential } from '../proof/credentials.repository.js';
import type { Proof } from '../proof/proof.service.js';
import { FILL_LIMIT, takeEntries, type StatusEntry } from '../proof/status-lists.repository.js';
import { enqueueIssued, NOTIFY_CHANNEL } from '../emails/emails.repository.js';
import { reserve } from '../usage/usage.repository.js';
import { searchFold } from './search-fold.js';
import {
  CERT_COLUMNS,
  insertIssued,
  insertPdfs,
  supersede,
  type CertificateRow,
  type NewCertificate,
} from './certificates.repository.js';

// The two ways an issue is written, side by side. Both write the same rows: the quota's use, the
// certificates, their status entries and signed credentials, their sealed PDFs, and their emails
// when emailed on issue (test/certificates/issue-at-once.test.ts checks that they match).
//
// 1. issueAtOnce, a single issue with one statement, outside any transaction: its quota, its status
// entry, the certificate, its signed credential and its sealed PDF (and its email when emailed on
// issue) and its audit event (audit_append, last: the account's audit head is every writer's last
// lock), all or nothing. The credential and the PDF were signed before, at a status entry read as free.
// The statement writes nothing (no certificate in its answer) when the quota has no room for it or
// the period has no usage row yet; it fails, undone, with NO_ROOM when it took the quota but the
// status list was full (migration 018), and with a unique violation on CREDENTIAL_ENTRY_KEY when
// another issue took that entry meanwhile. In each case the caller issues the usual way (writeIssue),
// which handles them all.
//
// It writes what `reserve`, `takeEntries`, `insertIssued`, `insertCredentials`, `insertPdfs` and
// `enqueueIssued` write for one certificate (test/certificates/issue-at-once.test.ts checks each
// row). Data-modifying CTEs run once each and see the same snapshot: each insert selects from the
// one before it, so a step that finds no room leaves the rest with nothing to insert; foreign keys
// are checked at the end of the statement, when the certificate is there.
//
// Row locks come in the order every other writer takes them: the usage row (quota), the account's
// list counts (`counts`: what the certificates' insert trigger of migrations 005 and 008 would
// otherwise take only at the end), then the status list (`entry`). An issue in a transaction takes
// the counts with its certificates' insert before its status entries, and a revocation takes them
// with its certificate's change before setting its bit: in another order, a single issue and a
// revocation each held what the other waited for (a deadlock; the test makes the two meet).
//
// 2. writeIssue, in a transaction the caller opens (or an import's chunk): any number of
// certificates, a reissue too. The status entries are taken in it, then the certificates proven
// (`prove`: their credentials signed at those entries, their PDFs sealed) and written.
export const CREDENTIAL_ENTRY_KEY = 'credentials_account_id_status_list_status_index_key';
export const NO_ROOM = 'CS001';

/** Where and when certificates are issued: the account, its quota's period, the template version. */
export interface IssueTarget {
  accountId: string;
  templateId: string;
  templateVersion: number;
  issuedAt: Date;
  /**
   * The organisation's name the certificates are issued under (frozen: certificates.issuer_name);
   * absent, the account's name as the insert finds it (migration 025's trigger).
   */
  issuerName?: string;
  /** The first day of the usage period (isoDate). */
  period: string;
  limit: number | null;
}

export interface IssueAtOnce extends IssueTarget {
  item: NewCertificate;
  credential: { statusList: number; statusIndex: number; signingKeyId: string; body: Buffer };
  pdf: { pdf: Buffer; sha256: string; signedBy: string };
  /** The id of the queued certificate email, when emailed on issue. */
  emailId?: string;
  /** Its audit events' canonical JSON (audit-log.ts auditBodies), appended with it. */
  audit: string[];
}

const STATEMENT = `
WITH quota AS (
  UPDATE usage_periods SET used = used + 1, quota = $4
   WHERE account_id = $1 AND period_start = $3 AND ($4::integer IS NULL OR used + 1 <= $4::integer)
  RETURNING 1
), counts AS MATERIALIZED (
  SELECT list FROM list_counts
   WHERE account_id = $1 AND list IN ('certificates:Issued', 'certificates:Issued:template:' || $2::uuid::text)
     AND EXISTS (SELECT 1 FROM quota)
   ORDER BY list FOR UPDATE
), entry AS (
  UPDATE status_lists SET used = used + 1
   WHERE account_id = $1 AND n = $5 AND used + 1 <= ${FILL_LIMIT} AND EXISTS (SELECT 1 FROM quota)
     AND (SELECT count(*) FROM counts) >= 0
  RETURNING n
), cert AS (
  INSERT INTO certificates (id, account_id, template_id, unique_code, recipient_name, search_name, recipient_email,
                            title, data, status, issued_at, created_at, expires_at, reminders, next_reminder_at,
                            email_count, template_version, expires_on, issuer_name)
  SELECT $7, $1, $2, $8, $9, $10, $11, $12, $13::jsonb, 'Issued', $14, $14, $15, $16::integer[], $17,
         CASE WHEN $22::uuid IS NULL THEN 0 ELSE 1 END, $18, $25::date, $26
    FROM entry
  RETURNING ${CERT_COLUMNS}
), credential AS (
  INSERT INTO credentials (certificate_id, account_id, status_list, status_index, signing_key_id, body)
  SELECT id, $1, $5, $6, $19, $20 FROM cert
), pdf AS (
  INSERT INTO certificate_pdfs (certificate_id, pdf, sha256, signed_by)
  SELECT id, $21, $23, $24 FROM cert
), mail AS (
  INSERT INTO email_sends (id, account_id, certificate_id, recipient_email, status, next_attempt_at, created_at)
  SELECT $22, $1, id, recipient_email, 'queued', $14, $14 FROM cert WHERE $22::uuid IS NOT NULL
  RETURNING 1
), audit AS MATERIALIZED (
  SELECT audit_append($1, $27::text[]) FROM cert
)
SELECT guard.ok, cert.*, (SELECT count(*) FROM (SELECT pg_notify('${NOTIFY_CHANNEL}', '') FROM mail) AS n)::int AS notified,
       (SELECT count(*) FROM audit)::int AS audited
  FROM (SELECT CASE WHEN (SELECT count(*) FROM quota) = (SELECT count(*) FROM entry) THEN true
                    ELSE certsvc_issue_at_once_no_room() END AS ok) AS guard
  LEFT JOIN cert ON true`;

// The certificate's row when written; undefined when the statement found no room (see above).
export async function issueAtOnce(db: Db, input: IssueAtOnce): Promise<CertificateRow | undefined> {
  const { item, credential, pdf } = input;
  const { rows } = await db.statement<CertificateRow & { notified: number; ok: boolean; audited: number }>({
    // Prepared once per connection: it is the statement of nearly every single issue.
    name: 'issue-at-once',
    text: STATEMENT,
    values: [
      input.accountId,
      input.templateId,
      input.period,
      input.limit,
      credential.statusList,
      credential.statusIndex,
      item.id,
      item.uniqueCode,
      item.recipientName,
      searchFold(item.recipientName),
      item.recipientEmail,
      item.title,
      JSON.stringify(item.data),
      input.issuedAt,
      item.expiresAt ?? null,
      item.reminders?.length ? `{${item.reminders.join(',')}}` : null,
      item.nextReminderAt ?? null,
      input.templateVersion,
      credential.signingKeyId,
      credential.body,
      pdf.pdf,
      input.emailId ?? null,
      pdf.sha256,
      pdf.signedBy,
      item.expiresOn ?? null,
      input.issuerName ?? null,
      input.audit,
    ],
  });
  const { ok: _ok, notified: _notified, audited: _audited, ...certificate } = rows[0]!;
  return certificate.id === null ? undefined : certificate;
}

export interface IssueWrite extends IssueTarget {
  /** In order: those beyond the quota's room are not written. */
  items: NewCertificate[];
  /** Queued for email in the same transaction (emailOnIssue). */
  emailed: boolean;
  /** A reissue: it uses no quota, and revokes the certificate it corrects with `reason`. */
  supersedes?: { id: string; reason: string };
}

/** The proofs of the certificates accepted, at their status entries (one each, in order). */
export type Prove = (accepted: NewCertificate[], entries: StatusEntry[]) => Promise<Proof[]>;

// Reserves quota and writes certificates, their signed credentials and their sealed PDFs (the
// credential attached, signed) in the caller's transaction: no certificate without both proofs.
// `granted`: how many of the items were written (the first ones; the quota's room). `superseded`:
// false when a reissue's old certificate was no longer Issued (then the caller rolls back).
export async function writeIssue(
  tx: Queryable,
  input: IssueWrite,
  prove: Prove,
): Promise<{ rows: CertificateRow[]; granted: number; superseded: boolean }> {
  const { accountId, issuedAt, supersedes } = input;
  const { granted } =
    supersedes === undefined
      ? await reserve(tx, { accountId, period: input.period, wanted: input.items.length, limit: input.limit })
      : { granted: input.items.length };
  const accepted = input.items.slice(0, granted);
  const rows =
    accepted.length > 0
      ? await insertIssued(tx, {
          accountId,
          templateId: input.templateId,
          templateVersion: input.templateVersion,
          issuedAt,
          issuerName: input.issuerName,
          items: accepted,
          emailed: input.emailed,
        })
      : [];
  if (input.emailed) {
    await enqueueIssued(tx, {
      accountId,
      now: issuedAt,
      sends: accepted.map((item) => ({
        id: uuidv7(issuedAt.getTime()),
        certificateId: item.id,
        email: item.recipientEmail,
      })),
    });
  }
  if (accepted.length > 0) {
    const entries = await takeEntries(tx, accountId, accepted.length);
    const proofs = await prove(accepted, entries);
    await insertCredentials(
      tx,
      accountId,
      proofs.map((p) => p.credential),
    );
    await insertPdfs(
      tx,
      proofs.map((p, i) => ({ certificateId: accepted[i]!.id, ...p.sealedPdf })),
    );
  }
  if (supersedes !== undefined) {
    const old = await supersede(tx, {
      accountId,
      id: supersedes.id,
      by: accepted[0]!.id,
      at: issuedAt,
      reason: supersedes.reason,
    });
    if (!old) return { rows, granted, superseded: false };
    await revokeCredential(tx, accountId, supersedes.id);
  }
  return { rows, granted, superseded: true };
}
