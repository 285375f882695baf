import type { Queryable } from '../../platform/db/db.js';
import type { DataValue } from '../../pdf/pdf-renderer.js';

// The certificates sent to one address, in every account of the service: the one read that is not
// scoped by an account (decisions 22: "My certificates" lists them all). What scopes it instead is
// the address, which the reader proved to own with a sign-in link; drafts are never shown.

export interface SentCertificateRow {
  id: string;
  account_id: string;
  template_id: string;
  unique_code: string;
  recipient_name: string;
  recipient_email: string;
  title: string;
  issuer_name: string;
  data: Record<string, DataValue>;
  status: 'Issued' | 'Revoked';
  issued_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  superseded_by: string | null;
  linkedin_organization_id: string | null;
}

const COLUMNS = `c.id, c.account_id, c.template_id, c.unique_code, c.recipient_name, c.recipient_email,
  c.title, c.issuer_name, c.data, c.status, c.issued_at, c.expires_at, c.revoked_at, c.superseded_by,
  a.linkedin_organization_id`;

/** Newest first. `email` is lower-cased (recipient-links.ts normalEmail). */
export async function certificatesSentTo(db: Queryable, email: string): Promise<SentCertificateRow[]> {
  const { rows } = await db.query<SentCertificateRow>(
    `SELECT ${COLUMNS} FROM certificates c JOIN accounts a ON a.id = c.account_id
      WHERE lower(c.recipient_email) = $1 AND c.status <> 'Draft'
      ORDER BY c.issued_at DESC, c.id DESC
      LIMIT 1000`,
    [email],
  );
  return rows;
}

/** One of them, or undefined when it was not sent to `email` (or does not exist, or is a draft). */
export async function certificateSentTo(
  db: Queryable,
  email: string,
  id: string,
): Promise<SentCertificateRow | undefined> {
  const { rows } = await db.query<SentCertificateRow>(
    `SELECT ${COLUMNS} FROM certificates c JOIN accounts a ON a.id = c.account_id
      WHERE c.id = $1 AND lower(c.recipient_email) = $2 AND c.status <> 'Draft'`,
    [id, email],
  );
  return rows[0];
}

export async function anyCertificateSentTo(db: Queryable, email: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM certificates WHERE lower(recipient_email) = $1 AND status <> 'Draft' LIMIT 1`,
    [email],
  );
  return rows.length > 0;
}
