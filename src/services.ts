import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './platform/db/db.js';
import {
  createFileChecker,
  createPdfRenderer,
  type FileChecker,
  type PdfRenderer,
} from './pdf/pdf-renderer.js';
import { createAuditService } from './modules/audit/audit.service.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { createApiKeysService } from './modules/api-keys/api-keys.service.js';
import { createCertificatesService } from './modules/certificates/certificates.service.js';
import { createIssueService } from './modules/certificates/issue.service.js';
import { createContractsService } from './modules/contracts/contracts.service.js';
import { createDesignPreviewService } from './modules/templates/design-preview.service.js';
import { createUploadsService } from './modules/templates/uploads.js';
import { createTemplatesService } from './modules/templates/templates.service.js';
import { createUsageService } from './modules/usage/usage.service.js';
import { createVerifyService } from './modules/verify/verify.service.js';
import { createUsersService } from './modules/users/users.service.js';
import { createEmailsService } from './modules/certificates/certificate-emails.service.js';
import { startEmailWorker, type EmailWorker } from './modules/emails/email.worker.js';
import {
  createFileTransport,
  createSmtpTransport,
  type MailTransport,
} from './modules/emails/mail-transport.js';
import { createAccountMail } from './modules/emails/account-mail.js';
import path from 'node:path';
import type { Metrics } from './platform/metrics.js';
import type { KeyVault } from './platform/proof/key-vault.js';
import { createProofService } from './modules/proof/proof.service.js';
import { createSigningKeys } from './modules/proof/signing-keys.service.js';
import { createImportsService } from './modules/imports/imports.service.js';
import { startImportWorker, type ImportWorker } from './modules/imports/import.worker.js';

export interface ServiceDeps {
  config: Config;
  db: Db;
  logger: Logger;
  now: () => Date;
  metrics: Metrics;
  // Seals the accounts' signing keys; absent, this process cannot sign (CLI with DATABASE_URL).
  vault?: KeyVault;
}

// Every render, timed: one observation per request (one document, or the documents of a batch).
function timed(renderer: PdfRenderer, metrics: Metrics): PdfRenderer {
  return {
    ...renderer,
    async render(template, items) {
      const stop = metrics.pdfRender.startTimer();
      try {
        return await renderer.render(template, items);
      } finally {
        stop();
        metrics.pdfsRendered.inc(items.length);
      }
    },
    async renderSealable(template, items) {
      const stop = metrics.pdfRender.startTimer();
      try {
        return await renderer.renderSealable(template, items);
      } finally {
        stop();
        metrics.pdfsRendered.inc(items.length);
      }
    },
  };
}

export function createServices(deps: ServiceDeps) {
  const { config, metrics } = deps;
  // Account emails (invitations, password resets) go out at once over a transport of this process.
  let mailTransport: MailTransport | undefined;
  const newTransport = (): MailTransport =>
    config.smtpUrl
      ? createSmtpTransport(config.smtpUrl, config.smtp)
      : createFileTransport(path.join(config.dataDir, 'mail'));
  const getMailTransport = () => (mailTransport ??= newTransport());
  // Worker threads start on first use, so CLI commands that render nothing never pay for them.
  let renderer: PdfRenderer | undefined;
  const getRenderer = () => (renderer ??= timed(createPdfRenderer(), metrics));
  // The checks of designs and uploads, in threads of their own (pdf/file-checker.ts).
  let checker: FileChecker | undefined;
  const getChecker = () => (checker ??= createFileChecker());
  const publicBaseUrl = config.publicBaseUrl;
  const signingKeys = createSigningKeys({
    db: deps.db,
    publicBaseUrl,
    vault: deps.vault,
    now: deps.now,
    logger: deps.logger,
  });
  const proof = createProofService({
    db: deps.db,
    publicBaseUrl,
    signingKeys,
    tsa: config.tsa,
    now: deps.now,
    logger: deps.logger,
  });

  const issue = createIssueService({
    db: deps.db,
    proof,
    renderer: getRenderer,
    publicBaseUrl,
    now: deps.now,
    onIssued: (count) => metrics.certificatesIssued.inc(count),
  });
  const accounts = createAccountsService({
    ...deps,
    checker: getChecker,
    onRenamed: (tx, accountId) => signingKeys.renewForName(tx, accountId),
  });
  const emails = createEmailsService(deps);
  // This process's import workers, woken when it creates an import.
  const importWorkers = new Set<ImportWorker>();
  const imports = createImportsService({
    db: deps.db,
    issue,
    principalOf: (accountId, importId) =>
      accounts.actingPrincipal(accountId, `import:${importId}`, {
        actor: { type: 'system', id: importId, label: 'import' },
      }),
    emails,
    publicBaseUrl,
    now: deps.now,
    onCreated: () => importWorkers.forEach((w) => w.wake()),
  });

  return {
    accounts,
    audit: createAuditService(deps),
    contracts: createContractsService(deps),
    keys: createApiKeysService(deps),
    templates: createTemplatesService({ db: deps.db, checkDesign: (design) => getChecker().design(design) }),
    uploads: createUploadsService({ checker: getChecker }),
    designPreview: createDesignPreviewService({ renderer: getRenderer, publicBaseUrl }),
    usage: createUsageService(deps),
    signingKeys,
    proof,
    certificates: createCertificatesService({ db: deps.db, publicBaseUrl, now: deps.now, proof }),
    issue,
    imports,
    verify: createVerifyService({ db: deps.db, publicBaseUrl, now: deps.now }),
    users: createUsersService(deps),
    emails,
    accountMail: createAccountMail({ transport: getMailTransport, mailFrom: config.mailFrom }),
    // The server starts the PDF workers at boot so that the first request does not pay for it.
    warmUp(): void {
      getRenderer();
      getChecker();
    },
    // Issues imports' chunks in this process (beside the other instances' workers).
    startImportWorker(): ImportWorker {
      const worker = startImportWorker({ imports, logger: deps.logger });
      importWorkers.add(worker);
      return {
        wake: () => worker.wake(),
        async stop() {
          importWorkers.delete(worker);
          await worker.stop();
        },
      };
    },
    // SMTP when SMTP_URL is set; otherwise .eml files under DATA_DIR/mail, marked sent.
    startEmailWorker(): EmailWorker {
      const transport = newTransport();
      const worker = startEmailWorker({
        db: deps.db,
        transport,
        mailFrom: config.mailFrom,
        publicBaseUrl,
        logger: deps.logger,
        options: config.email,
        now: deps.now,
        onOutcome: (outcome) => metrics.emailOutcomes.inc({ outcome }),
      });
      return {
        async stop(opts) {
          await worker.stop(opts);
          await transport.close();
        },
      };
    },
    async close() {
      await Promise.all([renderer?.close(), checker?.close(), mailTransport?.close()]);
    },
  };
}

export type Services = ReturnType<typeof createServices>;
