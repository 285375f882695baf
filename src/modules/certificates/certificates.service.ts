import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { paginated, toPage, type PageInput } from '../../platform/pagination.js';
import { plainTextProblem } from '../../platform/text.js';
import { assertStorable } from '../../platform/validation.js';
import type { Doer } from '../../platform/principal.js';
import { recordAudit } from '../audit/audit-log.js';
import type { ProofService } from '../proof/proof.service.js';
import { certificateView, type CertificateView } from './certificate.view.js';
import * as repo from './certificates.repository.js';
import { safeFileName, type ZipEntry } from '../../platform/zip.js';

// PDFs read per query while a ZIP streams (about 2 MB of PDFs at a time).
const ZIP_CHUNK = 50;
// The most PDFs one ZIP download holds (the newest of a larger search).
export const ZIP_MAX = 5_000;

// A revocation reason is public text (the verification page shows it): trimmed, under the same rules
// as a recipient's name. Every door (API, dashboard) passes what the person typed; none means none.
export function revocationReason(input: string | undefined): string | null {
  if (input === undefined) return null;
  const reason = input.trim();
  const problem = plainTextProblem(reason, 500);
  if (problem) throw new ValidationError([{ path: ['reason'], message: problem }], `The reason ${problem}`);
  return reason;
}

export function createCertificatesService(deps: {
  db: Db;
  publicBaseUrl: string;
  now: () => Date;
  proof: ProofService;
  /** Writes the verifications counted in memory (verify's counter), so that reads show them. */
  beforeCountsRead?: () => Promise<void>;
}) {
  const { db, publicBaseUrl } = deps;
  const countsWritten = async () => deps.beforeCountsRead?.();
  const view = (row: repo.CertificateRow) => certificateView(row, publicBaseUrl);

  return {
    async list(
      accountId: string,
      input: PageInput & {
        status?: repo.CertificateStatus;
        createdAfter?: string;
        recipientEmail?: string;
        templateId?: string;
        q?: string;
        expired?: 'true' | 'false';
        expiresBefore?: string;
      },
      // The dashboard's search also finds a certificate by its code; not a filter of the API.
      also: { uniqueCode?: string } = {},
    ) {
      assertStorable({ recipientEmail: input.recipientEmail, q: input.q });
      const page = toPage(input);
      await countsWritten();
      const { rows, total } = await repo.listCertificates(db, accountId, {
        ...page,
        status: input.status,
        createdAfter: input.createdAfter === undefined ? undefined : new Date(input.createdAfter),
        recipientEmail: input.recipientEmail,
        templateId: input.templateId?.toLowerCase(),
        q: input.q,
        uniqueCode: also.uniqueCode,
        expired:
          input.expired === undefined ? undefined : { value: input.expired === 'true', now: deps.now() },
        expiresBefore: input.expiresBefore === undefined ? undefined : new Date(input.expiresBefore),
      });
      return paginated(rows.map(view), page, total);
    },

    // The frozen PDFs of certificates as ZIP entries named `<recipient name>-<code>.pdf`, read
    // ZIP_CHUNK at a time (memory flat whatever the count), each counted as a download. The ZIP is
    // one audit event (`certificate.downloaded`, its count and `source`), written with the first
    // chunk's counts.
    async *pdfEntries(
      doer: Doer,
      accountId: string,
      ids: string[],
      source: string,
    ): AsyncGenerator<ZipEntry> {
      const event = {
        action: 'certificate.downloaded' as const,
        changes: { count: ids.length, source },
      };
      for (let at = 0; at < Math.max(ids.length, 1); at += ZIP_CHUNK) {
        const chunk = ids.slice(at, at + ZIP_CHUNK);
        const rows =
          at > 0
            ? await repo.readPdfsCounted(db, accountId, chunk)
            : await db.transaction(async (tx) => {
                const first = chunk.length > 0 ? await repo.readPdfsCounted(tx, accountId, chunk) : [];
                await recordAudit(tx, accountId, doer, [event], deps.now());
                return first;
              });
        for (const row of rows) {
          yield {
            name: `${safeFileName(row.recipient_name, 'certificate')}-${row.unique_code}.pdf`,
            data: row.pdf,
            modified: row.issued_at,
          };
        }
      }
    },

    // The ids of the newest certificates (at most ZIP_MAX) that a list search matches.
    async searchIds(
      accountId: string,
      input: {
        status?: repo.CertificateStatus;
        recipientEmail?: string;
        q?: string;
        uniqueCode?: string;
        templateId?: string;
      },
    ): Promise<string[]> {
      assertStorable({ recipientEmail: input.recipientEmail, q: input.q });
      return repo.matchingIds(db, accountId, input, ZIP_MAX);
    },

    async get(accountId: string, id: string): Promise<CertificateView> {
      await countsWritten();
      const row = await repo.findCertificate(db, accountId, id);
      if (!row) throw new NotFoundError('Certificate');
      return view(row);
    },

    /** The version of its template's design it was issued from; null when not recorded. */
    async templateVersion(accountId: string, id: string): Promise<number | null> {
      return repo.templateVersionOf(db, accountId, id);
    },

    async pdfHash(accountId: string, id: string): Promise<string> {
      const hash = await repo.readPdfHash(db, accountId, id);
      if (!hash) throw new NotFoundError('Certificate');
      return hash;
    },

    // The frozen bytes; `count` is false for HEAD so that only real downloads are counted.
    async pdf(accountId: string, id: string, count: boolean) {
      const pdf = await repo.readPdf(db, accountId, id, count);
      if (!pdf) throw new NotFoundError('Certificate');
      return pdf;
    },

    // A transaction, so that under Idempotency-Key the revocation commits with the stored answer.
    async revoke(doer: Doer, accountId: string, id: string, reasonInput?: string): Promise<CertificateView> {
      const reason = revocationReason(reasonInput);
      await countsWritten();
      return db.transaction(async (tx) => {
        const at = deps.now();
        const row = await repo.revokeCertificate(tx, { accountId, id, at, reason });
        if (row) {
          // The credential's status bit turns with the revocation, in the same transaction.
          await deps.proof.revoke(tx, accountId, id);
          const changes = { code: row.unique_code, status: { old: 'Issued', new: 'Revoked' }, reason };
          await recordAudit(
            tx,
            accountId,
            doer,
            [{ action: 'certificate.revoked', target: { type: 'certificate', id }, changes }],
            at,
          );
          return view(row);
        }
        const existing = await repo.findCertificate(tx, accountId, id);
        if (!existing) throw new NotFoundError('Certificate');
        throw new ConflictError(
          existing.status === 'Revoked'
            ? 'The certificate is already revoked; revocation is permanent'
            : `A ${existing.status} certificate cannot be revoked`,
        );
      });
    },
  };
}

export type CertificatesService = ReturnType<typeof createCertificatesService>;
