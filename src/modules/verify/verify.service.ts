import type { Db } from '../../platform/db/db.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { isUniqueCode } from '../../platform/ids.js';
import { verificationUrl } from '../certificates/certificate.view.js';
import type { Verification } from './verify.schemas.js';
import { findForVerification } from './verify.repository.js';

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
      const row = await findForVerification(deps.db.pool, code, opts.count !== false);
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
