import type { Db } from '../../platform/db/db.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { isUniqueCode } from '../../platform/ids.js';
import { verificationUrl } from '../certificates/certificate.view.js';

export interface Verification {
  valid: boolean;
  status: 'Issued' | 'Revoked';
  uniqueCode: string;
  recipientName: string;
  issuedAt: string;
  revokedAt: string | null;
  revocationReason: string | null;
  title: string;
  templateName: string;
  issuerName: string;
  verificationUrl: string;
  pdfSha256: string;
}

interface Row {
  status: 'Issued' | 'Revoked';
  unique_code: string;
  recipient_name: string;
  issued_at: Date;
  revoked_at: Date | null;
  revocation_reason: string | null;
  title: string;
  template_name: string;
  issuer_name: string;
  sha256: string;
}

// Public verification: never the email, the data or internal ids. Draft certificates are not found.
export function createVerifyService(deps: { db: Db; publicBaseUrl: string }) {
  return {
    // `count` is false for HEAD: only real verifications count.
    async verify(input: string, opts: { count?: boolean } = {}): Promise<Verification> {
      if (!isUniqueCode(input)) {
        throw new ValidationError([
          {
            path: ['code'],
            message: 'must be 16 characters of Crockford base32 (0-9, A-Z without I, L, O, U)',
          },
        ]);
      }
      const code = input.toUpperCase();
      // Counts the verification in the same statement that reads it: exact under concurrency.
      const { rows } = await deps.db.query<Row>(
        `UPDATE certificates c SET verification_count = c.verification_count + CASE WHEN $2 THEN 1 ELSE 0 END
           FROM templates t, accounts a, certificate_pdfs p
          WHERE c.unique_code = $1 AND c.status <> 'Draft'
            AND t.id = c.template_id AND a.id = c.account_id AND p.certificate_id = c.id
          RETURNING c.status, c.unique_code, c.recipient_name, c.issued_at, c.revoked_at, c.revocation_reason, c.title,
                    t.name AS template_name, a.name AS issuer_name, p.sha256`,
        [code, opts.count !== false],
      );
      const row = rows[0];
      if (!row) throw new NotFoundError('Certificate');
      return {
        valid: row.status === 'Issued',
        status: row.status,
        uniqueCode: row.unique_code,
        recipientName: row.recipient_name,
        issuedAt: row.issued_at.toISOString(),
        revokedAt: row.revoked_at?.toISOString() ?? null,
        revocationReason: row.revocation_reason,
        title: row.title,
        templateName: row.template_name,
        issuerName: row.issuer_name,
        verificationUrl: verificationUrl(deps.publicBaseUrl, row.unique_code),
        pdfSha256: row.sha256,
      };
    },
  };
}

export type VerifyService = ReturnType<typeof createVerifyService>;
