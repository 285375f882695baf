import type { Queryable } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';

// What the wallet pages read of a certificate.

export interface ClaimFacts {
  certificateId: string;
  uniqueCode: string;
  title: string;
  recipientName: string;
  /** The organisation's name the certificate was issued under (frozen). */
  issuerName: string;
  /** The template's locale: the claim page's language when the reader's is not known. */
  locale: string | null;
}

export async function claimFacts(db: Queryable, certificateId: string): Promise<ClaimFacts> {
  const { rows } = await db.query<{
    unique_code: string;
    title: string;
    recipient_name: string;
    issuer_name: string;
    locale: string | null;
  }>(
    `SELECT c.unique_code, c.title, c.recipient_name, COALESCE(c.issuer_name, a.name) AS issuer_name, t.locale
       FROM certificates c JOIN accounts a ON a.id = c.account_id JOIN templates t ON t.id = c.template_id
      WHERE c.id = $1`,
    [certificateId],
  );
  const row = rows[0];
  if (!row) throw new NotFoundError('Wallet link');
  return {
    certificateId,
    uniqueCode: row.unique_code,
    title: row.title,
    recipientName: row.recipient_name,
    issuerName: row.issuer_name,
    locale: row.locale,
  };
}

/** The certificate of a public code when it is valid (Issued, not superseded, not expired), locked. */
export async function walletLinkTarget(
  tx: Queryable,
  code: string,
  at: Date,
): Promise<{ certificateId: string; accountId: string; recipientEmail: string } | undefined> {
  const { rows } = await tx.query<{ id: string; account_id: string; recipient_email: string }>(
    `SELECT c.id, c.account_id, c.recipient_email FROM certificates c
      WHERE c.unique_code = $1 AND c.status = 'Issued' AND c.superseded_by IS NULL
        AND (c.expires_at IS NULL OR c.expires_at > $2)
        AND EXISTS (SELECT 1 FROM credentials cr WHERE cr.certificate_id = c.id)
      FOR UPDATE OF c`,
    [code, at],
  );
  const row = rows[0];
  return row && { certificateId: row.id, accountId: row.account_id, recipientEmail: row.recipient_email };
}
