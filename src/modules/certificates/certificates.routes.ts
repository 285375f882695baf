import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ValidationError } from '../../platform/errors.js';
import {
  AUTH_ERRORS,
  dataOf,
  errorResponses,
  example,
  IdParams,
  nonJson,
  pageExample,
  pageOf,
  rateHeaders,
  withRateHeaders,
} from '../../platform/http/schemas.js';
import type { Db } from '../../platform/db/db.js';
import { answerIdempotently, IdempotencyHeaders, REPLAYED_HEADER } from '../../platform/http/idempotency.js';
import type { CertificatesService } from './certificates.service.js';
import { certificateFileName } from '../shared/certificate-links.js';
import { ifNoneMatch, notModified } from '../../platform/http/etag.js';
import {
  BATCH_EXAMPLE,
  CERTIFICATE_EXAMPLE,
  IssueBody,
  ListQuery,
  REISSUED_EXAMPLE,
  ReissueBody,
  REVOKED_EXAMPLE,
  RevokeBody,
} from './certificates.schemas.js';
import type { IssueService } from './issue.service.js';
import { certificateAction } from './certificate-action.js';
import { BATCH_MAX_RECIPIENTS } from '../../platform/limits.js';

const security = [{ bearerAuth: [] }];

type TypedApi = ReturnType<typeof typed>;
const typed = (app: FastifyInstance) => app.withTypeProvider<TypeBoxTypeProvider>();
type Services = { certificates: CertificatesService; issue: IssueService };

export function certificatesRoutes(app: FastifyInstance, services: Services, db: Db) {
  const api = typed(app);
  issueRoute(api, services.issue, db);
  readRoutes(api, services.certificates);
  lifecycleRoutes(app, services, db);
}

// POST /certificates: one recipient or a batch.
function issueRoute(api: TypedApi, issue: IssueService, db: Db) {
  api.post(
    '/api/v1/certificates',
    {
      config: { access: { kind: 'key', scope: 'certificates:write' } },
      schema: {
        operationId: 'issueCertificates',
        tags: ['Certificates'],
        summary: `Issue one certificate (recipient) or a batch of up to ${BATCH_MAX_RECIPIENTS} (recipients)`,
        description:
          'Single mode answers 201 with the certificate, or 402 when the period quota is exhausted. Batch mode always answers 201 ' +
          'with one result per recipient in input order and the counters created and failed: invalid recipients fail with ' +
          'validation_error (issue paths start ["recipients", index]) and never use quota; valid ones use quota in input order, ' +
          'and those beyond it fail with quota_exceeded. Each certificate is committed with its frozen PDF. A batch counts as one ' +
          'request against the rate limit.',
        security,
        headers: IdempotencyHeaders,
        body: IssueBody,
        response: {
          201: withRateHeaders(
            Type.Object(
              {
                data: Type.Union([Type.Ref('Certificate'), Type.Ref('BatchResult')], {
                  description:
                    'A Certificate in single mode (recipient); a BatchResult in batch mode (recipients)',
                }),
              },
              { examples: [{ data: CERTIFICATE_EXAMPLE }, { data: BATCH_EXAMPLE }] },
            ),
            'Created: a Certificate (single mode) or a batch result (batch mode)',
            REPLAYED_HEADER,
          ),
          ...errorResponses(...AUTH_ERRORS, 402, 404, 409, 413, 422),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const single = body.recipient !== undefined;
      const batch = body.recipients !== undefined;
      if (single === batch) {
        throw new ValidationError(
          single
            ? [{ path: ['recipients'], message: 'send either recipient or recipients, not both' }]
            : [{ path: [], message: 'send recipient (single mode) or recipients (batch mode)' }],
        );
      }
      const principal = request.principal!;
      const templateId = body.templateId.toLowerCase();
      return answerIdempotently(request, reply, db, async () => ({
        status: 201,
        body: {
          data: single
            ? await issue.issueOne(principal, templateId, body.recipient)
            : await issue.issueBatch(principal, templateId, body.recipients!),
        },
      }));
    },
  );
}

// The account's certificates: the list, one, its frozen PDF.
function readRoutes(api: TypedApi, certificates: CertificatesService) {
  api.get(
    '/api/v1/certificates',
    {
      config: { access: { kind: 'key', scope: 'certificates:read' } },
      schema: {
        operationId: 'listCertificates',
        tags: ['Certificates'],
        summary: 'List certificates, newest first',
        description:
          'Polling pattern: ?status=Issued&page=1&perPage=100, optionally with createdAfter set to the newest createdAt ' +
          'already seen. Search with recipientEmail, templateId and q (name contains, case- and accent-insensitive), ' +
          'and filter by expiry with expired=true|false and expiresBefore, all combinable with status, createdAfter and paging. The plain call and the status and templateId filters cost the same however many certificates the account holds: ' +
          'their total is an exact counter kept in the same transactions as issuing and revoking. With createdAfter, recipientEmail, q, expired or expiresBefore the matches are counted, ' +
          'so the cost grows with their number; pages are read by offset, so deep pages cost more than the first.',
        security,
        querystring: ListQuery,
        response: {
          200: withRateHeaders(
            example(pageOf(Type.Ref('Certificate')), pageExample([CERTIFICATE_EXAMPLE])),
            'A page of certificates',
          ),
          ...errorResponses(...AUTH_ERRORS, 422),
        },
      },
    },
    async (request) => {
      const q = request.query;
      return certificates.list(request.principal!.accountId, q);
    },
  );

  api.get(
    '/api/v1/certificates/:id',
    {
      config: { access: { kind: 'key', scope: 'certificates:read' } },
      schema: {
        operationId: 'getCertificate',
        tags: ['Certificates'],
        summary: 'Read one certificate',
        description:
          "One certificate of the account, with its title, status and counters (downloads, emails, verifications). Another account's certificate is 404.",
        security,
        params: IdParams,
        response: {
          200: withRateHeaders(
            example(dataOf(Type.Ref('Certificate')), { data: CERTIFICATE_EXAMPLE }),
            'The certificate',
          ),
          ...errorResponses(...AUTH_ERRORS, 404, 422),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      return { data: await certificates.get(request.principal!.accountId, id.toLowerCase()) };
    },
  );

  api.get(
    '/api/v1/certificates/:id/pdf',
    {
      config: { access: { kind: 'key', scope: 'certificates:read' } },
      schema: {
        operationId: 'downloadCertificatePdf',
        tags: ['Certificates'],
        summary: 'Download the frozen PDF',
        description:
          'The same bytes on every download (rendered once at issue). ETag is the SHA-256 of the PDF; each successful GET counts ' +
          'one download (HEAD and 304 do not). Revoked certificates stay downloadable by their owner.',
        security,
        headers: Type.Object({
          'if-none-match': Type.Optional(
            Type.String({ description: 'The ETag of a copy in hand: a match answers 304 without the body' }),
          ),
        }),
        params: IdParams,
        response: {
          200: nonJson(
            'application/pdf',
            example(
              Type.String({ contentEncoding: 'binary', contentMediaType: 'application/pdf' }),
              '%PDF-1.7 … (the frozen PDF, the same bytes on every download)',
            ),
            'The PDF',
            {
              ...rateHeaders,
              'Content-Disposition': Type.String({
                description: 'attachment; filename="certificate-<uniqueCode>.pdf"',
              }),
              ETag: Type.String(),
            },
          ),
          304: withRateHeaders(Type.Null(), 'Not modified (If-None-Match matched)'),
          ...errorResponses(...AUTH_ERRORS, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const accountId = request.principal!.accountId;
      const inm = request.headers['if-none-match'];
      if (inm) {
        const etag = `"${await certificates.pdfHash(accountId, id.toLowerCase())}"`;
        if (ifNoneMatch(inm, etag)) {
          return notModified(reply, etag, 'private, no-cache');
        }
      }
      const pdf = await certificates.pdf(accountId, id.toLowerCase(), request.method === 'GET');
      return reply
        .header('Content-Type', 'application/pdf')
        .header('Content-Disposition', `attachment; filename="${certificateFileName(pdf.uniqueCode)}"`)
        .header('ETag', `"${pdf.sha256}"`)
        .header('Cache-Control', 'private, no-cache')
        .send(pdf.pdf);
    },
  );
}

// What happens to an issued certificate: revoked, or corrected and reissued.
function lifecycleRoutes(app: FastifyInstance, { certificates, issue }: Services, db: Db) {
  certificateAction(app, db, {
    action: 'revoke',
    operationId: 'revokeCertificate',
    summary: 'Revoke an Issued certificate (permanent)',
    description:
      'Issued to Revoked. The optional reason is PUBLIC: verification shows it to anyone with the code. Already Revoked or ' +
      'Draft: 409. Revocation gives no quota back; the PDF stays downloadable by its owner.',
    body: RevokeBody,
    emptyBodyIsObject: true,
    status: 200,
    answers: { ref: 'Certificate', example: REVOKED_EXAMPLE, description: 'The revoked certificate' },
    check: (principal, id) => certificates.get(principal.accountId, id),
    run: (principal, id, body) => certificates.revoke(principal, principal.accountId, id, body.reason),
  });

  certificateAction(app, db, {
    action: 'reissue',
    operationId: 'reissueCertificate',
    summary: 'Correct and reissue: a new certificate for the corrected recipient; the old one is revoked',
    description:
      "Issues a new certificate (new id, code, PDF and signed credential) from the old one's template, in its current " +
      'version, for the corrected recipient; in the same transaction the old certificate becomes Revoked with the public ' +
      'reason "Superseded by <new code>", and its verification links the new one. Uses no quota. The new expiresAt is the ' +
      "recipient's expiresAt, else the old certificate's (when still ahead), else the template's validity. Checks in order: " +
      '404, 422 (body), 409 (the certificate is not Issued, or its template is archived). Idempotency-Key is honoured: a ' +
      'retry gets the same new certificate.',
    body: ReissueBody,
    status: 201,
    answers: { ref: 'Certificate', example: REISSUED_EXAMPLE, description: 'The new certificate' },
    check: (principal, id) => certificates.get(principal.accountId, id),
    run: (principal, id, body) => issue.reissue(principal, id, body.recipient),
  });
}
