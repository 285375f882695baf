import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { REASON_MAX_LENGTH } from '../../platform/limits.js';
import type { Principal } from '../../platform/principal.js';
import { plainTextProblem } from '../../platform/text.js';
import { recordAudit } from '../audit/audit-log.js';
import type { CertificateView } from '../certificates/certificate.view.js';
import type { IssueService } from '../certificates/issue.service.js';
import type { AccountMail } from '../emails/account-mail.js';
import { verificationUrl } from '../shared/certificate-links.js';
import { decideCorrection, findCorrection, type CorrectionRow } from './corrections.repository.js';
import { correctionApprovedMail, correctionRejectedMail, type MailBody } from './recipient-mail.js';

// The account's decision on a correction request: approved (the reissue of decisions 19 with the
// requested values: no quota, the old certificate superseded, the new one emailed when its template
// emails on issue) or rejected with a reason. The request is closed in the decision's transaction
// with its audit event (correction.approved, correction.rejected); the recipient's email goes out
// after the commit, and a failed one is said to the person deciding (the decision stands).

export interface DecisionDeps {
  db: Db;
  now: () => Date;
  publicBaseUrl: string;
  mail: AccountMail;
  issue: Pick<IssueService, 'reissue'>;
  onMailFailed?: (err: unknown) => void;
}

async function tell(deps: DecisionDeps, to: string, body: MailBody): Promise<boolean> {
  try {
    await deps.mail.send({ to, ...body });
    return true;
  } catch (err) {
    deps.onMailFailed?.(err);
    return false;
  }
}

async function openOne(deps: DecisionDeps, accountId: string, id: string): Promise<CorrectionRow> {
  const row = await findCorrection(deps.db, accountId, id);
  if (!row) throw new NotFoundError('Correction request');
  if (row.status !== 'open') throw new ConflictError(`This request was ${row.status} already.`);
  return row;
}

const deciderOf = (principal: Principal) => principal.actor.label ?? principal.actor.type;

/**
 * The reissue and the request's closing commit together: the reissue renders first, holding
 * nothing, then writes in the transaction that `finish` closes the request in (db.ambient).
 */
export async function approveCorrection(
  deps: DecisionDeps,
  principal: Principal,
  id: string,
): Promise<{ certificate: CertificateView; mailed: boolean }> {
  const request = await openOne(deps, principal.accountId, id);
  const recipient = {
    name: request.requested_name ?? request.recipient_name,
    email: request.recipient_email,
    data: { ...request.data, ...request.requested_data },
  };
  const certificate = await deps.db.ambient(
    () => deps.issue.reissue(principal, request.certificate_id, recipient),
    async (tx, fresh) => {
      const at = deps.now();
      const closed = await decideCorrection(tx, {
        accountId: principal.accountId,
        id,
        status: 'approved',
        at,
        by: deciderOf(principal),
        newCertificateId: fresh.id,
      });
      if (!closed) throw new ConflictError('This request was decided already.');
      const changes = { requestId: id, newCertificateId: fresh.id, code: fresh.uniqueCode };
      const target = { type: 'certificate', id: request.certificate_id };
      await recordAudit(
        tx,
        principal.accountId,
        principal,
        [{ action: 'correction.approved', target, changes }],
        at,
      );
    },
  );
  const mailed = await tell(
    deps,
    request.recipient_email,
    correctionApprovedMail({
      recipientName: certificate.recipientName,
      title: certificate.title ?? request.title,
      issuerName: request.issuer_name,
      verificationUrl: certificate.verificationUrl,
      myUrl: `${deps.publicBaseUrl}/my`,
    }),
  );
  return { certificate, mailed };
}

/** Rejects with a reason (1 to 500 characters), which the recipient is told. */
export async function rejectCorrection(
  deps: DecisionDeps,
  principal: Principal,
  id: string,
  reasonInput: string,
): Promise<{ mailed: boolean }> {
  const reason = reasonInput.trim();
  const problem = plainTextProblem(reason, REASON_MAX_LENGTH);
  if (problem) {
    throw new ValidationError([{ path: ['reason'], message: problem }], `the reason ${problem}.`);
  }
  const request = await openOne(deps, principal.accountId, id);
  await deps.db.transaction(async (tx) => {
    const at = deps.now();
    const closed = await decideCorrection(tx, {
      accountId: principal.accountId,
      id,
      status: 'rejected',
      at,
      by: deciderOf(principal),
      reason,
    });
    if (!closed) throw new ConflictError('This request was decided already.');
    const target = { type: 'certificate', id: request.certificate_id };
    await recordAudit(
      tx,
      principal.accountId,
      principal,
      [{ action: 'correction.rejected', target, changes: { requestId: id, reason } }],
      at,
    );
  });
  const mailed = await tell(
    deps,
    request.recipient_email,
    correctionRejectedMail({
      recipientName: request.recipient_name,
      title: request.title,
      issuerName: request.issuer_name,
      reason,
      verificationUrl: verificationUrl(deps.publicBaseUrl, request.unique_code),
    }),
  );
  return { mailed };
}
