import type { Db } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { checkedCode, verificationUrl } from '../shared/certificate-links.js';
import { issuerDid } from '../shared/issuer-identity.js';
import type { Verification } from './verify.schemas.js';
import { findForVerification, findPreviewPdf, findPublicPdf } from './verify.repository.js';
import { createPreviewImages, type PreviewImages } from './preview-image.js';

export interface PageExtras {
  credentialSha256: string | null;
  linkedinOrganizationId: string | null;
  /** Whether the page offers the PDF (the account's setting). */
  publicDownload: boolean;
  /** The issuer's calendar day of the expiry (YYYY-MM-DD), which the page shows; null: its UTC day. */
  expiresOn: string | null;
  /** The issuer's default language: the page's when the reader's browser asks for none we have. */
  defaultLanguage: string;
}

// Public verification: never the email, the data or internal ids. Draft certificates are not found.
export function createVerifyService(deps: {
  db: Db;
  publicBaseUrl: string;
  now: () => Date;
  previews?: PreviewImages;
}) {
  const previews = deps.previews ?? createPreviewImages();
  return {
    // The link preview image (og:image): the first page of the frozen PDF as a PNG, made once per
    // PDF (preview-image.ts); offered exactly when the page offers "Download PDF", else not found.
    async previewPng(input: string): Promise<{ png: Buffer; sha256: string }> {
      const code = checkedCode(input);
      const row = await findPreviewPdf(deps.db.pool, code, false);
      if (!row) throw new NotFoundError('Preview');
      const cached = previews.cached(row.sha256);
      if (cached) return { png: cached, sha256: row.sha256 };
      const withPdf = await findPreviewPdf(deps.db.pool, code, true);
      if (!withPdf?.pdf) throw new NotFoundError('Preview');
      return { png: await previews.pngOf(withPdf.sha256, withPdf.pdf), sha256: withPdf.sha256 };
    },

    // The frozen PDF for anyone with the code, unless the account turned public download off or
    // the certificate was revoked: both read as not found. `count` is false for HEAD.
    async publicPdf(input: string, opts: { count: boolean }) {
      const row = await findPublicPdf(deps.db.pool, checkedCode(input), opts.count);
      if (!row) throw new NotFoundError('PDF');
      return { uniqueCode: row.unique_code, pdf: row.pdf, sha256: row.sha256 };
    },

    // `count` is false for HEAD: only real verifications count.
    // credentialSha256 (the page's drop zone) and the account's page settings are for the page;
    // the JSON answer's schema leaves them out.
    async verify(input: string, opts: { count?: boolean } = {}): Promise<Verification & PageExtras> {
      const code = checkedCode(input);
      const row = await findForVerification(deps.db.pool, code, opts.count !== false);
      if (!row) throw new NotFoundError('Certificate');
      const signedRow = row.credential_sha256 !== null;
      // Expired from its expiry instant on; the status stays Issued.
      const expired = row.expires_at !== null && row.expires_at.getTime() <= deps.now().getTime();
      return {
        valid: row.status === 'Issued' && !expired,
        status: row.status,
        uniqueCode: row.unique_code,
        recipientName: row.recipient_name,
        issuedAt: row.issued_at.toISOString(),
        expiresAt: row.expires_at?.toISOString() ?? null,
        expiresOn: row.expires_at ? row.expires_on : null,
        expired,
        revokedAt: row.revoked_at?.toISOString() ?? null,
        revocationReason: row.revocation_reason,
        title: row.title,
        templateName: row.template_name,
        issuerName: row.issuer_name,
        issuerCurrentName: row.issuer_current_name,
        verificationUrl: verificationUrl(deps.publicBaseUrl, row.unique_code),
        pdfSha256: row.sha256,
        signed: signedRow,
        pdfSigned: row.pdf_signed,
        credentialSha256: row.credential_sha256,
        linkedinOrganizationId: row.linkedin_organization_id,
        publicDownload: row.public_download,
        defaultLanguage: row.default_language ?? 'en',
        supersededBy:
          row.superseded_by_code === null
            ? null
            : verificationUrl(deps.publicBaseUrl, row.superseded_by_code),
        issuerDid: signedRow ? issuerDid(deps.publicBaseUrl, row.account_id) : null,
        credentialUrl: signedRow ? `${deps.publicBaseUrl}/api/v1/verify/${row.unique_code}/credential` : null,
      };
    },
  };
}

export type VerifyService = ReturnType<typeof createVerifyService>;
