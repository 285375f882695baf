import type { Db, Queryable } from '../../platform/db/db.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { paginated, toPage, type PageInput } from '../../platform/pagination.js';
import type { Principal } from '../../platform/principal.js';
import { findCertificate, lockCertificate } from './certificates.repository.js';
import * as repo from '../emails/emails.repository.js';
import { recordAudit } from '../audit/audit-log.js';
import type { EmailSendView } from '../emails/emails.schemas.js';

function view(row: repo.EmailSendRow): EmailSendView {
  return {
    id: row.id,
    certificateId: row.certificate_id,
    recipientEmail: row.recipient_email,
    kind: row.kind,
    remindBeforeDays: row.remind_days,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    sentAt: row.sent_at?.toISOString() ?? null,
  };
}

export function createEmailsService(deps: { db: Db; now: () => Date }) {
  const { db } = deps;
  return {
    // 404, then 403 when the plan or contract has email delivery off (docs/api.md, Email).
    async assertSendable(principal: Principal, certificateId: string): Promise<void> {
      if (!(await findCertificate(db, principal.accountId, certificateId)))
        throw new NotFoundError('Certificate');
      if (!principal.emailDelivery) {
        throw new ForbiddenError(
          principal.partner
            ? 'Email delivery is disabled by the partner contract'
            : `Email delivery is not included in the ${principal.plan} plan`,
        );
      }
    },

    // 409 unless Issued; then the send is queued, to `recipientEmail` or the stored address.
    async send(principal: Principal, certificateId: string, recipientEmail?: string): Promise<EmailSendView> {
      return db.transaction(async (tx) => {
        // Locks the certificate so that a concurrent revoke cannot slip between check and enqueue.
        const certificate = await lockCertificate(tx, principal.accountId, certificateId);
        if (!certificate) throw new NotFoundError('Certificate');
        if (certificate.status !== 'Issued') {
          throw new ConflictError(`A ${certificate.status} certificate cannot be emailed`);
        }
        const now = deps.now();
        const row = await repo.enqueueSend(tx, {
          id: uuidv7(),
          accountId: principal.accountId,
          certificateId,
          recipientEmail: recipientEmail ?? certificate.recipient_email,
          now,
        });
        // Whether it went to another address than the stored one, not the address itself.
        const changes = { code: certificate.unique_code, sendId: row.id, otherAddress: !!recipientEmail };
        const target = { type: 'certificate', id: certificateId };
        await recordAudit(
          tx,
          principal.accountId,
          principal,
          [{ action: 'certificate.sent', target, changes }],
          now,
        );
        return view(row);
      });
    },

    // Emails every Issued certificate of `certificateIds` at once (the dashboard's "Email all created"),
    // in one transaction with `claim` (which returns false when they were emailed already: 409).
    async sendAll(
      principal: Principal,
      certificateIds: string[],
      claim: (tx: Queryable) => Promise<boolean>,
    ): Promise<number> {
      if (!principal.emailDelivery) {
        throw new ForbiddenError(
          principal.partner
            ? 'Email delivery is disabled by the partner contract'
            : `Email delivery is not included in the ${principal.plan} plan`,
        );
      }
      return db.transaction(async (tx) => {
        if (!(await claim(tx))) throw new ConflictError('These certificates were emailed already');
        const now = deps.now();
        const queued = await repo.enqueueMany(tx, {
          accountId: principal.accountId,
          now,
          certificateIds,
          sendIds: certificateIds.map(() => uuidv7(now.getTime())),
        });
        // One event per certificate queued, in one call (one round trip).
        const events = queued.map((id) => ({
          action: 'certificate.sent' as const,
          target: { type: 'certificate', id },
          changes: { emailAll: true },
        }));
        await recordAudit(tx, principal.accountId, principal, events, now);
        return queued.length;
      });
    },

    async history(accountId: string, certificateId: string, input: PageInput) {
      if (!(await findCertificate(db, accountId, certificateId))) throw new NotFoundError('Certificate');
      const page = toPage(input);
      const { rows, total } = await repo.listSends(db, accountId, certificateId, page);
      return paginated(rows.map(view), page, total);
    },

    // How much mail waits for delivery, across every worker (metrics).
    queueStats(): Promise<{ depth: number; oldestAgeS: number }> {
      return repo.queueStats(db);
    },
  };
}

export type EmailsService = ReturnType<typeof createEmailsService>;
