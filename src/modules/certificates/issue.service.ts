import type { Db, Queryable } from '../../platform/db/db.js';
import { NotFoundError, QuotaExceededError, ValidationError, type Issue } from '../../platform/errors.js';
import { uniqueCode, uuidv7 } from '../../platform/ids.js';
import {
  sampleValues,
  type PdfRenderer,
  type RenderValues,
  type UnsealedPdf,
} from '../../pdf/pdf-renderer.js';
import { fillText } from '../../pdf/placeholders.js';
import type { Principal } from '../../platform/principal.js';
import { findAccount } from '../accounts/accounts.repository.js';
import type { CredentialsService } from '../credentials/credentials.service.js';
import type { PdfSigningService } from '../credentials/pdf-signing.service.js';
import { findActiveWithDesign, type TemplateWithDesign } from '../templates/templates.repository.js';
import { isoDate, periodEnd, periodStart } from '../usage/period.js';
import { reserve, usedInPeriod } from '../usage/usage.repository.js';
import { certificateView, verificationUrl, type CertificateView } from './certificate.view.js';
import { insertIssued, insertPdfs, type NewCertificate } from './certificates.repository.js';
import { checkRecipient, type ValidRecipient } from './recipient.js';

export type BatchItem =
  | { index: number; status: 'created'; certificate: CertificateView }
  | {
      index: number;
      status: 'failed';
      error: { code: string; message: string; details?: Record<string, unknown> };
    };

export interface BatchOutcome {
  created: number;
  failed: number;
  results: BatchItem[];
}

interface Candidate {
  index: number;
  recipient: ValidRecipient;
  values: RenderValues;
  id: string;
}

interface Rendered extends Candidate {
  unsealed: UnsealedPdf;
}

// What was earned, frozen on the certificate: the design's title filled with the recipient's values,
// or the template name when the design has none (or it fills to nothing).
function titleOf(template: TemplateWithDesign, values: RenderValues): string {
  const title = template.design.title === undefined ? '' : fillText(template.design.title, values);
  return title || template.name;
}

const QUOTA_MESSAGE = 'The certificate quota of the current period is exhausted';

export function createIssueService(deps: {
  db: Db;
  renderer: () => PdfRenderer;
  credentials: CredentialsService;
  pdfSigning: PdfSigningService;
  /** Told how many certificates each issue created (metrics). */
  onIssued?: (count: number) => void;
  publicBaseUrl: string;
  now: () => Date;
}) {
  const { db } = deps;

  async function loadTemplate(accountId: string, templateId: string): Promise<TemplateWithDesign> {
    const template = await findActiveWithDesign(db, accountId, templateId);
    if (!template) throw new NotFoundError('Template');
    return template;
  }

  function candidate(index: number, recipient: ValidRecipient, issuedAt: Date): Candidate {
    const code = uniqueCode();
    return {
      index,
      recipient,
      id: uuidv7(issuedAt.getTime()),
      values: {
        recipientName: recipient.name,
        issuedAt: issuedAt.toISOString(),
        uniqueCode: code,
        verificationUrl: verificationUrl(deps.publicBaseUrl, code),
        data: recipient.data,
      },
    };
  }

  // Renders candidates in order until `wanted` PDFs exist (or none are left); a candidate whose
  // text cannot be rendered becomes a validation failure and does not use quota.
  async function renderUpTo(
    template: TemplateWithDesign,
    candidates: Candidate[],
    wanted: number,
    prefixOf: (c: Candidate) => (string | number)[],
  ): Promise<{ rendered: Rendered[]; failures: Map<number, Issue[]>; untried: Candidate[] }> {
    const rendered: Rendered[] = [];
    const failures = new Map<number, Issue[]>();
    let cursor = 0;
    // updated_at moves with every design change (migration 002): (id, updated_at) is the cache key.
    const renderTemplate = {
      id: template.id,
      version: template.updated_at.toISOString(),
      design: template.design,
    };
    while (rendered.length < wanted && cursor < candidates.length) {
      const slice = candidates.slice(cursor, cursor + (wanted - rendered.length));
      cursor += slice.length;
      const outcomes = await deps.renderer().renderSealable(
        renderTemplate,
        slice.map((c) => c.values),
      );
      outcomes.forEach((outcome, i) => {
        const c = slice[i]!;
        if (outcome.ok) rendered.push({ ...c, unsealed: outcome.unsealed });
        else
          failures.set(
            c.index,
            outcome.issues.map((issue) => ({ ...issue, path: [...prefixOf(c), ...issue.path] })),
          );
      });
    }
    return { rendered, failures, untried: candidates.slice(cursor) };
  }

  // Reserves quota and writes certificates, their signed credentials and their sealed PDFs (the
  // credential attached, signed) in one transaction: no certificate without both proofs. Returns
  // the created views (input order) and the candidates left without quota.
  async function commit(
    principal: Principal,
    template: TemplateWithDesign,
    rendered: Rendered[],
    issuedAt: Date,
    outer?: Queryable,
  ) {
    await deps.credentials.prepare(principal.accountId);
    await deps.pdfSigning.prepare(principal.accountId);
    const inTransaction = <T>(work: (tx: Queryable) => Promise<T>) =>
      outer ? work(outer) : db.transaction(work);
    return inTransaction(async (tx) => {
      const { granted } = await reserve(tx, {
        accountId: principal.accountId,
        period: isoDate(periodStart(issuedAt)),
        wanted: rendered.length,
        limit: principal.monthlyLimit,
      });
      const accepted = rendered.slice(0, granted);
      const items: NewCertificate[] = accepted.map((r) => ({
        id: r.id,
        uniqueCode: r.values.uniqueCode,
        recipientName: r.recipient.name,
        recipientEmail: r.recipient.email,
        title: titleOf(template, r.values),
        data: r.recipient.data,
      }));
      const rows =
        items.length > 0
          ? await insertIssued(tx, {
              accountId: principal.accountId,
              templateId: template.id,
              issuedAt,
              items,
            })
          : [];
      if (items.length > 0) {
        const account = await findAccount(tx, principal.accountId);
        const credentials = await deps.credentials.issue(tx, {
          accountId: principal.accountId,
          accountName: account!.name,
          template: { id: template.id, name: template.name, description: template.description },
          issuedAt,
          subjects: items.map((item) => ({
            certificateId: item.id,
            recipientName: item.recipientName,
            recipientEmail: item.recipientEmail,
            title: item.title,
          })),
        });
        const sealed = await deps.pdfSigning.seal(
          tx,
          principal.accountId,
          accepted.map((r, i) => ({ unsealed: r.unsealed, credential: credentials[i]! })),
          issuedAt,
        );
        await insertPdfs(
          tx,
          sealed.map((s, i) => ({ certificateId: items[i]!.id, ...s })),
        );
      }
      return {
        created: rows.map((row) => certificateView(row, deps.publicBaseUrl)),
        rejected: rendered.slice(granted),
      };
    });
  }

  async function quotaDetails(principal: Principal, now: Date) {
    const used = await usedInPeriod(db, principal.accountId, isoDate(periodStart(now)));
    const limit = principal.monthlyLimit ?? 0;
    return { remaining: Math.max(0, limit - used), limit, resetAt: periodEnd(now).toISOString() };
  }

  async function remainingQuota(principal: Principal, now: Date): Promise<number> {
    if (principal.monthlyLimit === null) return Number.POSITIVE_INFINITY;
    const used = await usedInPeriod(db, principal.accountId, isoDate(periodStart(now)));
    return Math.max(0, principal.monthlyLimit - used);
  }

  // Previews by template version: a design change moves updated_at, so a stale preview is never served.
  const previews = new Map<string, Promise<Buffer>>();

  return {
    // The template's design rendered with sample values (the dashboard shows it); nothing is stored.
    async preview(
      accountId: string,
      templateId: string,
    ): Promise<{ pdf: Buffer; page: { width: number; height: number } }> {
      const template = await loadTemplate(accountId, templateId);
      const version = `${template.id}:${template.updated_at.toISOString()}`;
      let pdf = previews.get(version);
      if (!pdf) {
        const values = {
          ...sampleValues(template.design),
          verificationUrl: verificationUrl(deps.publicBaseUrl, '7K3M9Q2XRB4D8F1H'),
        };
        pdf = deps
          .renderer()
          .render({ id: template.id, version: template.updated_at.toISOString(), design: template.design }, [
            values,
          ])
          .then(([outcome]) => {
            if (!outcome?.ok)
              throw new ValidationError(outcome?.issues ?? [], 'The sample values cannot be rendered');
            return outcome.pdf;
          });
        pdf.catch(() => previews.delete(version));
        if (previews.size >= 32) previews.delete(previews.keys().next().value!);
        previews.set(version, pdf);
      }
      return { pdf: await pdf, page: template.design.page };
    },

    async issueOne(principal: Principal, templateId: string, input: unknown): Promise<CertificateView> {
      const template = await loadTemplate(principal.accountId, templateId);
      const checked = checkRecipient(input, template.fields, ['recipient']);
      if (!checked.ok) throw new ValidationError(checked.issues);
      const issuedAt = deps.now();
      if ((await remainingQuota(principal, issuedAt)) < 1) {
        throw new QuotaExceededError(await quotaDetails(principal, issuedAt));
      }
      const c = candidate(0, checked.recipient, issuedAt);
      const { rendered, failures } = await renderUpTo(template, [c], 1, () => ['recipient']);
      if (failures.size > 0) throw new ValidationError(failures.get(0)!);
      const { created } = await commit(principal, template, rendered, issuedAt);
      if (created.length === 0) throw new QuotaExceededError(await quotaDetails(principal, issuedAt));
      deps.onIssued?.(1);
      return created[0]!;
    },

    // `opts.tx`: issue within the caller's transaction (an import's chunk commits its rows' results
    // with the certificates).
    async issueBatch(
      principal: Principal,
      templateId: string,
      inputs: unknown[],
      opts: { tx?: Queryable } = {},
    ): Promise<BatchOutcome> {
      const template = await loadTemplate(principal.accountId, templateId);
      const issuedAt = deps.now();
      const results: BatchItem[] = new Array(inputs.length);
      const candidates: Candidate[] = [];
      inputs.forEach((input, index) => {
        const checked = checkRecipient(input, template.fields, ['recipients', index]);
        if (checked.ok) candidates.push(candidate(index, checked.recipient, issuedAt));
        else results[index] = validationItem(index, checked.issues);
      });

      const remaining = await remainingQuota(principal, issuedAt);
      const { rendered, failures, untried } = await renderUpTo(
        template,
        candidates,
        Math.min(candidates.length, remaining),
        (c) => ['recipients', c.index],
      );
      for (const [index, issues] of failures) results[index] = validationItem(index, issues);
      const { created, rejected } =
        rendered.length > 0
          ? await commit(principal, template, rendered, issuedAt, opts.tx)
          : { created: [], rejected: [] };
      created.forEach((certificate, i) => {
        const index = rendered[i]!.index;
        results[index] = { index, status: 'created', certificate };
      });
      if (created.length > 0) deps.onIssued?.(created.length);
      for (const c of [...rejected, ...untried]) {
        results[c.index] = {
          index: c.index,
          status: 'failed',
          error: { code: 'quota_exceeded', message: QUOTA_MESSAGE },
        };
      }
      return { created: created.length, failed: inputs.length - created.length, results };
    },
  };
}

function validationItem(index: number, issues: Issue[]): BatchItem {
  return {
    index,
    status: 'failed',
    error: { code: 'validation_error', message: 'The recipient is not valid', details: { issues } },
  };
}

export type IssueService = ReturnType<typeof createIssueService>;
