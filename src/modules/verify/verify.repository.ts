import type { Pool } from 'pg';

// What public verification reads of a certificate: the frozen part (cached per instance until
// pushed out) and the live part (verify-cache.ts says when it is read again).
export interface LiveRow {
  status: 'Issued' | 'Revoked';
  revoked_at: Date | null;
  revocation_reason: string | null;
  superseded_by_code: string | null;
  template_name: string;
  issuer_current_name: string;
  linkedin_organization_id: string | null;
  public_download: boolean;
  default_language: string | null;
  /** The signed credential, when asked for (the frozen part had none yet). */
  credential: Buffer | null;
}

export interface VerificationRow extends LiveRow {
  id: string;
  unique_code: string;
  account_id: string;
  template_id: string;
  recipient_name: string;
  issued_at: Date;
  expires_at: Date | null;
  /** The issuer's calendar day of the expiry (YYYY-MM-DD), when the issuer wrote it. */
  expires_on: string | null;
  title: string;
  /** The organisation's name at issue (frozen). */
  issuer_name: string;
  sha256: string;
  pdf_signed: boolean;
}

const LIVE_COLUMNS = `c.status, c.revoked_at, c.revocation_reason, t.name AS template_name, a.name AS issuer_current_name,
  a.linkedin_organization_id, a.public_download, a.default_language,
  (SELECT n.unique_code FROM certificates n WHERE n.id = c.superseded_by) AS superseded_by_code`;

// The certificate behind a public code, with its template, issuer, PDF hash and credential; Drafts
// are not found. Reads only: verifications are counted by verification-counter.ts. Named
// statements, planned once per connection (planning the join cost more than running it).
export async function findForVerification(
  db: Pick<Pool, 'query'>,
  code: string,
): Promise<VerificationRow | undefined> {
  const { rows } = await db.query<VerificationRow>({
    name: 'verify-certificate',
    text: `SELECT c.id, c.unique_code, c.account_id, c.template_id, c.recipient_name, c.issued_at, c.expires_at,
                  c.expires_on::text, c.title, c.issuer_name, p.sha256, p.signed_by IS NOT NULL AS pdf_signed,
                  ${LIVE_COLUMNS},
                  (SELECT cr.body FROM credentials cr WHERE cr.certificate_id = c.id) AS credential
             FROM certificates c JOIN templates t ON t.id = c.template_id JOIN accounts a ON a.id = c.account_id
             JOIN certificate_pdfs p ON p.certificate_id = c.id
            WHERE c.unique_code = $1 AND c.status <> 'Draft'`,
    values: [code],
  });
  return rows[0];
}

// The live part of a cached certificate (by its id), and its credential when `withCredential` (the
// cached frozen part has none yet: certificates issued before credentials, until the backfill).
export async function findLive(
  db: Pick<Pool, 'query'>,
  id: string,
  withCredential: boolean,
): Promise<LiveRow | undefined> {
  const { rows } = await db.query<LiveRow>({
    name: 'verify-live',
    text: `SELECT ${LIVE_COLUMNS},
                  CASE WHEN $2 THEN (SELECT cr.body FROM credentials cr WHERE cr.certificate_id = c.id) END AS credential
             FROM certificates c JOIN templates t ON t.id = c.template_id JOIN accounts a ON a.id = c.account_id
            WHERE c.id = $1 AND c.status <> 'Draft'`,
    values: [id, withCredential],
  });
  return rows[0];
}

// Adds the verifications counted in memory, `counts[i]` to certificate `ids[i]`, in one statement.
export async function addVerificationCounts(
  db: Pick<Pool, 'query'>,
  ids: string[],
  counts: number[],
): Promise<void> {
  await db.query({
    name: 'verify-add-counts',
    text: `UPDATE certificates c SET verification_count = c.verification_count + t.n
             FROM unnest($1::uuid[], $2::int[]) AS t(id, n) WHERE c.id = t.id`,
    values: [ids, counts],
  });
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
