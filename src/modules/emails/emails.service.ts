import type { Db } from '../../platform/db/db.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { paginated, toPage, type PageInput } from '../../platform/http/pagination.js';
import { assertParsedBody } from '../../platform/http/body.js';
import { compileBodyValidator, toIssues } from '../../platform/http/validation.js';
import type { Principal } from '../../platform/principal.js';
import { findCertificate } from '../certificates/certificates.repository.js';
import { SendBody } from './emails.schemas.js';
import * as repo from './emails.repository.js';

export interface EmailSendView {
  id: string;
  certificateId: string;
  recipientEmail: string;
  status: repo.SendStatus;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

function view(row: repo.EmailSendRow): EmailSendView {
  return {
    id: row.id,
    certificateId: row.certificate_id,
    recipientEmail: row.recipient_email,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    sentAt: row.sent_at?.toISOString() ?? null,
  };
}

const validateBody = compileBodyValidator(SendBody);

export function createEmailsService(deps: { db: Db; now: () => Date }) {
  const { db } = deps;
  return {
    // Checks in the order of decisions 8: 404, 403 (delivery disabled), 422 (body), 409 (not Issued).
    async send(principal: Principal, certificateId: string, body: unknown): Promise<EmailSendView> {
      const certificate = await findCertificate(db, principal.accountId, certificateId);
      if (!certificate) throw new NotFoundError('Certificate');
      if (!principal.emailDelivery) {
        throw new ForbiddenError(
          principal.partner
            ? 'Email delivery is disabled by the partner contract'
            : `Email delivery is not included in the ${principal.plan} plan`,
        );
      }
      assertParsedBody(body);
      const input = body ?? {};
      if (!validateBody(input)) throw new ValidationError(toIssues(validateBody.errors ?? []));
      const override = (input as { recipientEmail?: string }).recipientEmail;
      return db.transaction(async (tx) => {
        // Locks the certificate so that a concurrent revoke cannot slip between check and enqueue.
        const { rows } = await tx.query<{ status: string }>(
          'SELECT status FROM certificates WHERE id = $1 AND account_id = $2 FOR UPDATE',
          [certificateId, principal.accountId],
        );
        const status = rows[0]?.status;
        if (status !== 'Issued') throw new ConflictError(`A ${status} certificate cannot be emailed`);
        const row = await repo.enqueueSend(tx, {
          id: uuidv7(),
          accountId: principal.accountId,
          certificateId,
          recipientEmail: override ?? certificate.recipient_email,
          now: deps.now(),
        });
        return view(row);
      });
    },

    async history(accountId: string, certificateId: string, input: PageInput) {
      if (!(await findCertificate(db, accountId, certificateId))) throw new NotFoundError('Certificate');
      const page = toPage(input);
      const { rows, total } = await repo.listSends(db, accountId, certificateId, page);
      return paginated(rows.map(view), page, total);
    },
  };
}

export type EmailsService = ReturnType<typeof createEmailsService>;
