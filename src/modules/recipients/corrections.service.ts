import { ConflictError, NotFoundError, ValidationError, type Issue } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { DATA_VALUE_MAX_LENGTH, NAME_MAX_LENGTH } from '../../platform/limits.js';
import type { Doer, Origin, Principal } from '../../platform/principal.js';
import { plainTextProblem } from '../../platform/text.js';
import type { TemplateField } from '../../pdf/design.schema.js';
import { recordAudit } from '../audit/audit-log.js';
import { approveCorrection, rejectCorrection, type DecisionDeps } from './correction-decisions.js';
import {
  countOpenCorrections,
  insertCorrection,
  listCorrections,
  openCorrectionOf,
} from './corrections.repository.js';

// Correction requests (issue 31 item 5, decisions 22): a recipient asks, from "My certificates" or
// the claim page, for a corrected name and/or field values, with a note. One open request per
// certificate. The account approves or rejects it (correction-decisions.ts); the recipient gets an
// email either way. Each step is in the audit trail: correction.requested, .approved, .rejected.

export const NOTE_MAX_LENGTH = 1000;

export interface CorrectionInput {
  name?: string;
  /** Field values by key; only the template's one-value fields are read. */
  data?: Record<string, string>;
  note?: string;
}

/** What the form of a request shows: the certificate's current values, and the fields it may change. */
export interface CorrectionForm {
  certificateId: string;
  uniqueCode: string;
  title: string;
  issuerName: string;
  recipientName: string;
  fields: { key: string; label: string; value: string }[];
  open: boolean;
}

// Who asks for a correction: the recipient, who is no user of the account (decisions 21's actor types).
const recipientDoer = (origin?: Origin): Doer => ({
  actor: { type: 'system', id: null, label: 'recipient' },
  origin,
});

interface CertificateRow {
  id: string;
  account_id: string;
  template_id: string;
  unique_code: string;
  recipient_name: string;
  title: string;
  issuer_name: string;
  data: Record<string, unknown>;
  status: string;
  superseded_by: string | null;
}

export function createCorrectionsService(
  deps: DecisionDeps & {
    /** The template's fields (none when it cannot be read): the values a request may change. */
    fieldsOf: (accountId: string, templateId: string) => Promise<TemplateField[]>;
  },
) {
  const { db } = deps;

  async function correctable(certificateId: string): Promise<CertificateRow> {
    const { rows } = await db.query<CertificateRow>(
      `SELECT id, account_id, template_id, unique_code, recipient_name, title, issuer_name, data, status, superseded_by
         FROM certificates WHERE id = $1`,
      [certificateId],
    );
    const row = rows[0];
    if (!row || row.status === 'Draft') throw new NotFoundError('Certificate');
    if (row.status !== 'Issued' || row.superseded_by) {
      throw new ConflictError('This certificate has been revoked: it can no longer be corrected.');
    }
    return row;
  }

  async function editable(row: CertificateRow) {
    return (await deps.fieldsOf(row.account_id, row.template_id)).filter((f) => f.type !== 'list');
  }

  const decisionDeps: DecisionDeps = deps;

  return {
    async form(certificateId: string): Promise<CorrectionForm> {
      const row = await correctable(certificateId);
      const fields = (await editable(row)).map((f) => ({
        key: f.key,
        label: f.label,
        value: row.data[f.key] === undefined ? '' : String(row.data[f.key]),
      }));
      return {
        certificateId: row.id,
        uniqueCode: row.unique_code,
        title: row.title,
        issuerName: row.issuer_name,
        recipientName: row.recipient_name,
        fields,
        open: await openCorrectionOf(db, row.id),
      };
    },

    /** Records a request; 409 when the certificate is revoked or already has an open one. */
    async request(
      certificateId: string,
      input: CorrectionInput,
      via: 'my' | 'claim',
      origin?: Origin,
    ): Promise<{ id: string }> {
      const row = await correctable(certificateId);
      const issues: Issue[] = [];
      const name = (input.name ?? '').trim();
      let newName: string | null = null;
      if (name !== '' && name !== row.recipient_name) {
        const problem = plainTextProblem(name, NAME_MAX_LENGTH);
        if (problem) issues.push({ path: ['name'], message: problem });
        newName = name;
      }
      const data: Record<string, string> = {};
      for (const field of await editable(row)) {
        const value = (input.data?.[field.key] ?? '').trim();
        const old = row.data[field.key] === undefined ? '' : String(row.data[field.key]);
        if (input.data?.[field.key] === undefined || value === old) continue;
        const problem = plainTextProblem(value, DATA_VALUE_MAX_LENGTH);
        if (problem) issues.push({ path: ['data', field.key], message: problem });
        data[field.key] = value;
      }
      const note = (input.note ?? '').trim();
      if ([...note].length > NOTE_MAX_LENGTH) {
        issues.push({ path: ['note'], message: `must be at most ${NOTE_MAX_LENGTH} characters` });
      }
      if (issues.length > 0) {
        const said = issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ');
        throw new ValidationError(issues, `The request cannot be sent: ${said}.`);
      }
      if (newName === null && Object.keys(data).length === 0) {
        throw new ValidationError(
          [{ path: [], message: 'nothing changed' }],
          'Nothing to correct: change the name or a value first.',
        );
      }
      const id = uuidv7();
      await db.transaction(async (tx) => {
        const now = deps.now();
        await insertCorrection(tx, {
          id,
          accountId: row.account_id,
          certificateId: row.id,
          name: newName,
          data,
          note,
          via,
          now,
        });
        // A summary: which values, never the values themselves.
        const changes = { requestId: id, via, name: newName !== null, fields: Object.keys(data) };
        const target = { type: 'certificate', id: row.id };
        await recordAudit(
          tx,
          row.account_id,
          recipientDoer(origin),
          [{ action: 'correction.requested', target, changes }],
          now,
        );
      });
      return { id };
    },

    list(accountId: string) {
      return listCorrections(db, accountId);
    },

    countOpen(accountId: string): Promise<number> {
      return countOpenCorrections(db, accountId);
    },

    approve: (principal: Principal, id: string) => approveCorrection(decisionDeps, principal, id),
    reject: (principal: Principal, id: string, reason: string) =>
      rejectCorrection(decisionDeps, principal, id, reason),
  };
}

export type CorrectionsService = ReturnType<typeof createCorrectionsService>;
