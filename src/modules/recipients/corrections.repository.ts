import pg from 'pg';
import type { Queryable } from '../../platform/db/db.js';
import { ConflictError } from '../../platform/errors.js';

// The correction requests (migration 036), scoped by account like every repository but the
// recipient's own reads (the certificate itself is found by the caller first).

export type CorrectionStatus = 'open' | 'approved' | 'rejected';

export interface CorrectionRow {
  id: string;
  account_id: string;
  certificate_id: string;
  requested_name: string | null;
  requested_data: Record<string, string>;
  note: string;
  via: 'my' | 'claim';
  status: CorrectionStatus;
  created_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
  reason: string | null;
  new_certificate_id: string | null;
  // Of the certificate, for the list and the emails.
  unique_code: string;
  recipient_name: string;
  recipient_email: string;
  title: string;
  issuer_name: string;
  certificate_status: string;
  data: Record<string, unknown>;
  template_id: string;
}

const COLUMNS = `r.id, r.account_id, r.certificate_id, r.requested_name, r.requested_data, r.note, r.via,
  r.status, r.created_at, r.decided_at, r.decided_by, r.reason, r.new_certificate_id,
  c.unique_code, c.recipient_name, c.recipient_email, c.title, c.issuer_name,
  c.status AS certificate_status, c.data, c.template_id`;

export const ALREADY_OPEN =
  'A correction of this certificate was already asked for and is waiting for the issuer: you will get an email when they decide.';

export async function insertCorrection(
  db: Queryable,
  row: {
    id: string;
    accountId: string;
    certificateId: string;
    name: string | null;
    data: Record<string, string>;
    note: string;
    via: 'my' | 'claim';
    now: Date;
  },
): Promise<void> {
  try {
    await db.query(
      `INSERT INTO correction_requests (id, account_id, certificate_id, requested_name, requested_data, note, via, created_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8)`,
      [
        row.id,
        row.accountId,
        row.certificateId,
        row.name,
        JSON.stringify(row.data),
        row.note,
        row.via,
        row.now,
      ],
    );
  } catch (err) {
    // The partial unique index: one open request per certificate, settled by the database.
    if (err instanceof pg.DatabaseError && err.constraint === 'correction_requests_open_idx') {
      throw new ConflictError(ALREADY_OPEN);
    }
    throw err;
  }
}

export async function openCorrectionOf(db: Queryable, certificateId: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM correction_requests WHERE certificate_id = $1 AND status = 'open'`,
    [certificateId],
  );
  return rows.length > 0;
}

export async function findCorrection(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<CorrectionRow | undefined> {
  const { rows } = await db.query<CorrectionRow>(
    `SELECT ${COLUMNS} FROM correction_requests r JOIN certificates c ON c.id = r.certificate_id
      WHERE r.account_id = $1 AND r.id = $2`,
    [accountId, id],
  );
  return rows[0];
}

/** The open requests (oldest first: the queue) and the latest 20 decided ones (newest first). */
export async function listCorrections(
  db: Queryable,
  accountId: string,
): Promise<{ open: CorrectionRow[]; decided: CorrectionRow[] }> {
  const [open, decided] = await Promise.all([
    db.query<CorrectionRow>(
      `SELECT ${COLUMNS} FROM correction_requests r JOIN certificates c ON c.id = r.certificate_id
        WHERE r.account_id = $1 AND r.status = 'open' ORDER BY r.created_at, r.id LIMIT 500`,
      [accountId],
    ),
    db.query<CorrectionRow>(
      `SELECT ${COLUMNS} FROM correction_requests r JOIN certificates c ON c.id = r.certificate_id
        WHERE r.account_id = $1 AND r.status <> 'open' ORDER BY r.decided_at DESC, r.id DESC LIMIT 20`,
      [accountId],
    ),
  ]);
  return { open: open.rows, decided: decided.rows };
}

export async function countOpenCorrections(db: Queryable, accountId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM correction_requests WHERE account_id = $1 AND status = 'open'`,
    [accountId],
  );
  return rows[0]!.n;
}

/** Closes an open request; false when it was no longer open (decided meanwhile). */
export async function decideCorrection(
  db: Queryable,
  input: {
    accountId: string;
    id: string;
    status: 'approved' | 'rejected';
    at: Date;
    by: string;
    reason?: string;
    newCertificateId?: string;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE correction_requests
        SET status = $3, decided_at = $4, decided_by = $5, reason = $6, new_certificate_id = $7
      WHERE account_id = $1 AND id = $2 AND status = 'open'`,
    [
      input.accountId,
      input.id,
      input.status,
      input.at,
      input.by,
      input.reason ?? null,
      input.newCertificateId ?? null,
    ],
  );
  return rowCount === 1;
}
