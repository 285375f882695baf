import type { Pool } from 'pg';

export interface VerificationRow {
  status: 'Issued' | 'Revoked';
  unique_code: string;
  recipient_name: string;
  issued_at: Date;
  expires_at: Date | null;
  /** The issuer's calendar day of the expiry (YYYY-MM-DD), when the issuer wrote it. */
  expires_on: string | null;
  revoked_at: Date | null;
  revocation_reason: string | null;
  title: string;
  template_name: string;
  /** The organisation's name at issue (frozen) and now. */
  issuer_name: string;
  issuer_current_name: string;
  sha256: string;
  account_id: string;
  credential_sha256: string | null;
  pdf_signed: boolean;
  linkedin_organization_id: string | null;
  public_download: boolean;
  default_language: string | null;
  superseded_by_code: string | null;
}

// The certificate behind a public code, with its template, issuer and PDF hash; Drafts are not
// found. Counts the verification (when `count`) in the same statement: exact under concurrency.
// A named statement, planned once per connection (planning this join cost more PostgreSQL CPU than
// running it), whose count commits asynchronously (docs/operations.md, "Asynchronous commits"):
// `set_config(..., true)` holds for the statement's own implicit transaction only, so `db` must
// not be a client inside a transaction.
export async function findForVerification(
  db: Pick<Pool, 'query'>,
  code: string,
  count: boolean,
): Promise<VerificationRow | undefined> {
  const { rows } = await db.query<VerificationRow>({
    name: 'verify-certificate',
    text: `WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true))
     UPDATE certificates c SET verification_count = c.verification_count + CASE WHEN $2 THEN 1 ELSE 0 END
       FROM async_commit, templates t, accounts a, certificate_pdfs p
      WHERE c.unique_code = $1 AND c.status <> 'Draft'
        AND t.id = c.template_id AND a.id = c.account_id AND p.certificate_id = c.id
      RETURNING c.status, c.unique_code, c.recipient_name, c.issued_at, c.expires_at, c.expires_on::text, c.revoked_at, c.revocation_reason, c.title,
                t.name AS template_name, c.issuer_name, a.name AS issuer_current_name, p.sha256, c.account_id, p.signed_by IS NOT NULL AS pdf_signed,
                a.linkedin_organization_id, a.public_download, a.default_language,
                (SELECT encode(sha256(cr.body), 'hex') FROM credentials cr WHERE cr.certificate_id = c.id) AS credential_sha256,
                (SELECT n.unique_code FROM certificates n WHERE n.id = c.superseded_by) AS superseded_by_code`,
    values: [code, count],
  });
  return rows[0];
}

// The frozen PDF behind a public code, for the verification page's "Download PDF": only an Issued
// certificate of an account that leaves public download on. Counts a download (when `count`) in
// the same statement, like the owner's download.
export async function findPublicPdf(
  db: Pick<Pool, 'query'>,
  code: string,
  count: boolean,
): Promise<{ unique_code: string; pdf: Buffer; sha256: string } | undefined> {
  const { rows } = await db.query<{ unique_code: string; pdf: Buffer; sha256: string }>({
    name: 'verify-public-pdf',
    text: `WITH c AS (
       UPDATE certificates c SET download_count = c.download_count + CASE WHEN $2 THEN 1 ELSE 0 END
         FROM accounts a
        WHERE c.unique_code = $1 AND c.status = 'Issued' AND a.id = c.account_id AND a.public_download
        RETURNING c.id, c.unique_code
     )
     SELECT c.unique_code, p.pdf, p.sha256 FROM c JOIN certificate_pdfs p ON p.certificate_id = c.id`,
    values: [code, count],
  });
  return rows[0];
}

// The frozen PDF's hash behind a public code, for the link preview image (og:image), and the PDF
// itself only when `withPdf` (the image is cached by the hash). Only what "Download PDF" offers: an
// Issued certificate of an account that leaves public download on. Counts nothing, writes nothing.
export async function findPreviewPdf(
  db: Pick<Pool, 'query'>,
  code: string,
  withPdf: boolean,
): Promise<{ sha256: string; pdf: Buffer | null } | undefined> {
  const { rows } = await db.query<{ sha256: string; pdf: Buffer | null }>({
    name: 'verify-preview-pdf',
    text: `SELECT p.sha256, CASE WHEN $2 THEN p.pdf END AS pdf
             FROM certificates c JOIN accounts a ON a.id = c.account_id
             JOIN certificate_pdfs p ON p.certificate_id = c.id
            WHERE c.unique_code = $1 AND c.status = 'Issued' AND a.public_download`,
    values: [code, withPdf],
  });
  return rows[0];
}
