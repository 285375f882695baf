import type { Logger } from 'pino';
import path from 'node:path';
import type { Config } from './config.js';
import type { Db } from './platform/db/db.js';
import type { FileChecker, PdfRenderer } from './pdf/pdf-renderer.js';
import { timedRenderer } from './pdf/timed-renderer.js';
import type { EmailWorker } from './modules/emails/email.worker.js';
import type { MailTransport } from './modules/emails/mail-transport.js';
import type { ImportWorker } from './modules/imports/import.worker.js';
import type { Metrics } from './platform/metrics.js';
import type { KeyVault } from './platform/proof/key-vault.js';

export interface ServiceDeps {
  config: Config;
  db: Db;
  logger: Logger;
  now: () => Date;
  metrics: Metrics;
  // Seals the accounts' signing keys; absent, this process cannot sign (CLI with DATABASE_URL).
  vault?: KeyVault;
}

// The services of one process, each built from its module on demand: the server builds them all
// at start; a certsvc command builds only the ones it names (Command.services), so `account list`
// never loads the renderer, the proofs or the schemas of issuing (docs/benchmarks.md, issue 33).
type Module<T> = () => Promise<T>;
const load = {
  accounts: () => import('./modules/accounts/accounts.service.js'),
  audit: () => import('./modules/audit/audit.service.js'),
  contracts: () => import('./modules/contracts/contracts.service.js'),
  keys: () => import('./modules/api-keys/api-keys.service.js'),
  templates: () => import('./modules/templates/templates.service.js'),
  uploads: () => import('./modules/templates/uploads.js'),
  badgeImages: () => import('./modules/templates/badge-images.js'),
  designPreview: () => import('./modules/templates/design-preview.service.js'),
  usage: () => import('./modules/usage/usage.service.js'),
  signingKeys: () => import('./modules/proof/signing-keys.service.js'),
  proof: () => import('./modules/proof/proof.service.js'),
  certificates: () => import('./modules/certificates/certificates.service.js'),
  issue: () => import('./modules/certificates/issue.service.js'),
  imports: () => import('./modules/imports/imports.service.js'),
  verify: () => import('./modules/verify/verify.service.js'),
  users: () => import('./modules/users/users.service.js'),
  emails: () => import('./modules/certificates/certificate-emails.service.js'),
  accountMail: () => import('./modules/emails/account-mail.js'),
  operators: () => import('./modules/operators/operators.service.js'),
  operatorConsole: () => import('./modules/operators/operator-console.service.js'),
  team: () => import('./modules/users/team.service.js'),
  security: () => import('./modules/users/security.service.js'),
  sso: () => import('./modules/sso/sso.service.js'),
  recipients: () => import('./modules/recipients/recipients.service.js'),
  corrections: () => import('./modules/recipients/corrections.service.js'),
  oid4vci: () => import('./modules/wallet/oid4vci-issuer.service.js'),
  wallet: () => import('./modules/wallet/wallet.service.js'),
} satisfies Record<string, Module<unknown>>;
type Loaded<K extends keyof typeof load> = Awaited<ReturnType<(typeof load)[K]>>;

export interface ServiceMap {
  accounts: ReturnType<Loaded<'accounts'>['createAccountsService']>;
  audit: ReturnType<Loaded<'audit'>['createAuditService']>;
  contracts: ReturnType<Loaded<'contracts'>['createContractsService']>;
  keys: ReturnType<Loaded<'keys'>['createApiKeysService']>;
  templates: ReturnType<Loaded<'templates'>['createTemplatesService']>;
  uploads: ReturnType<Loaded<'uploads'>['createUploadsService']>;
  badgeImages: ReturnType<Loaded<'badgeImages'>['createBadgeImagesService']>;
  designPreview: ReturnType<Loaded<'designPreview'>['createDesignPreviewService']>;
  usage: ReturnType<Loaded<'usage'>['createUsageService']>;
  signingKeys: ReturnType<Loaded<'signingKeys'>['createSigningKeys']>;
  proof: ReturnType<Loaded<'proof'>['createProofService']>;
  certificates: ReturnType<Loaded<'certificates'>['createCertificatesService']>;
  issue: ReturnType<Loaded<'issue'>['createIssueService']>;
  imports: ReturnType<Loaded<'imports'>['createImportsService']>;
  verify: ReturnType<Loaded<'verify'>['createVerifyService']>;
  users: ReturnType<Loaded<'users'>['createUsersService']>;
  emails: ReturnType<Loaded<'emails'>['createEmailsService']>;
  accountMail: ReturnType<Loaded<'accountMail'>['createAccountMail']>;
  operators: ReturnType<Loaded<'operators'>['createOperatorsService']>;
  operatorConsole: ReturnType<Loaded<'operatorConsole'>['createOperatorConsole']>;
  team: ReturnType<Loaded<'team'>['createTeamService']>;
  security: ReturnType<Loaded<'security'>['createSecurityService']>;
  sso: ReturnType<Loaded<'sso'>['createSsoService']>;
  recipients: ReturnType<Loaded<'recipients'>['createRecipientsService']>;
  corrections: ReturnType<Loaded<'corrections'>['createCorrectionsService']>;
  oid4vci: ReturnType<Loaded<'oid4vci'>['createOid4vciService']>;
  wallet: ReturnType<Loaded<'wallet'>['createWalletService']>;
}
export type ServiceName = keyof ServiceMap;
export const SERVICE_NAMES = Object.keys(load) as ServiceName[];

// What a service is built from besides its module: the others it needs, got through `get`.
type Get = <K extends ServiceName>(name: K) => Promise<ServiceMap[K]>;
interface Parts {
  deps: ServiceDeps;
  get: Get;
  renderer: () => PdfRenderer;
  checker: () => FileChecker;
  mailTransport: () => MailTransport;
  importWorkers: Set<ImportWorker>;
}

const BUILD: { [K in ServiceName]: (p: Parts) => Promise<ServiceMap[K]> } = {
  accounts: async ({ deps, get, checker }) =>
    (await load.accounts()).createAccountsService({
      ...deps,
      // The logo's checks (the server's threads; no certsvc command uploads a logo).
      checker,
      // A rename makes a PDF signing certificate for the new name, in the rename's transaction.
      onRenamed: async (tx, accountId) => (await get('signingKeys')).renewForName(tx, accountId),
    }),
  audit: async ({ deps }) => (await load.audit()).createAuditService(deps),
  contracts: async ({ deps }) => (await load.contracts()).createContractsService(deps),
  keys: async ({ deps }) => (await load.keys()).createApiKeysService(deps),
  templates: async ({ deps, checker }) =>
    (await load.templates()).createTemplatesService({
      db: deps.db,
      checkDesign: (design) => checker().design(design),
    }),
  uploads: async ({ checker }) => (await load.uploads()).createUploadsService({ checker }),
  badgeImages: async ({ deps, checker }) =>
    (await load.badgeImages()).createBadgeImagesService({ db: deps.db, checker, now: deps.now }),
  designPreview: async ({ deps, renderer }) =>
    (await load.designPreview()).createDesignPreviewService({
      renderer,
      publicBaseUrl: deps.config.publicBaseUrl,
    }),
  usage: async ({ deps }) => (await load.usage()).createUsageService(deps),
  signingKeys: async ({ deps }) =>
    (await load.signingKeys()).createSigningKeys({
      db: deps.db,
      publicBaseUrl: deps.config.publicBaseUrl,
      vault: deps.vault,
      now: deps.now,
      logger: deps.logger,
    }),
  proof: async ({ deps, get, renderer }) =>
    (await load.proof()).createProofService({
      db: deps.db,
      publicBaseUrl: deps.config.publicBaseUrl,
      signingKeys: await get('signingKeys'),
      renderer,
      tsa: deps.config.tsa,
      now: deps.now,
      logger: deps.logger,
    }),
  certificates: async ({ deps, get }) => {
    const verify = await get('verify');
    return (await load.certificates()).createCertificatesService({
      db: deps.db,
      publicBaseUrl: deps.config.publicBaseUrl,
      now: deps.now,
      proof: await get('proof'),
      // The verifications this process counted in memory reach the database before a read shows them.
      beforeCountsRead: () => verify.flushCounts(),
    });
  },
  issue: async ({ deps, get, renderer }) =>
    (await load.issue()).createIssueService({
      db: deps.db,
      proof: await get('proof'),
      renderer,
      publicBaseUrl: deps.config.publicBaseUrl,
      now: deps.now,
      onIssued: (count) => deps.metrics.certificatesIssued.inc(count),
    }),
  imports: async ({ deps, get, importWorkers }) => {
    const accounts = await get('accounts');
    return (await load.imports()).createImportsService({
      db: deps.db,
      issue: await get('issue'),
      principalOf: (accountId, importId) =>
        accounts.actingPrincipal(accountId, `import:${importId}`, {
          actor: { type: 'system', id: importId, label: 'import' },
        }),
      emails: await get('emails'),
      publicBaseUrl: deps.config.publicBaseUrl,
      now: deps.now,
      // This process's import workers, woken when it creates an import.
      onCreated: () => importWorkers.forEach((w) => w.wake()),
    });
  },
  verify: async ({ deps }) =>
    (await load.verify()).createVerifyService({
      db: deps.db,
      publicBaseUrl: deps.config.publicBaseUrl,
      now: deps.now,
      logger: deps.logger,
    }),
  users: async ({ deps }) => (await load.users()).createUsersService(deps),
  emails: async ({ deps }) => (await load.emails()).createEmailsService(deps),
  // Account emails (invitations, password resets) go out at once over a transport of this process.
  accountMail: async ({ deps, mailTransport }) =>
    (await load.accountMail()).createAccountMail({
      transport: mailTransport,
      mailFrom: deps.config.mailFrom,
    }),
  operators: async ({ deps }) =>
    (await load.operators()).createOperatorsService({ db: deps.db, vault: deps.vault, now: deps.now }),
  operatorConsole: async ({ deps, get }) =>
    (await load.operatorConsole()).createOperatorConsole({
      db: deps.db,
      accounts: await get('accounts'),
      contracts: await get('contracts'),
      now: deps.now,
    }),
  team: async ({ deps, get }) =>
    (await load.team()).createTeamService({
      db: deps.db,
      now: deps.now,
      mail: await get('accountMail'),
      publicBaseUrl: deps.config.publicBaseUrl,
    }),
  security: async ({ deps }) => (await load.security()).createSecurityService(deps),
  sso: async ({ deps }) =>
    (await load.sso()).createSsoService({
      db: deps.db,
      vault: deps.vault,
      now: deps.now,
      publicBaseUrl: deps.config.publicBaseUrl,
    }),
  // Issue 31: "My certificates" and correction requests (the recipient's emails go out at once).
  recipients: async ({ deps, get }) =>
    (await load.recipients()).createRecipientsService({
      db: deps.db,
      now: deps.now,
      publicBaseUrl: deps.config.publicBaseUrl,
      mail: await get('accountMail'),
    }),
  corrections: async ({ deps, get }) => {
    const templates = await get('templates');
    return (await load.corrections()).createCorrectionsService({
      db: deps.db,
      now: deps.now,
      publicBaseUrl: deps.config.publicBaseUrl,
      mail: await get('accountMail'),
      issue: await get('issue'),
      fieldsOf: (accountId, templateId) =>
        templates.get(accountId, templateId).then(
          (t) => t.fields,
          () => [],
        ),
      onMailFailed: (err) => deps.logger.error({ err }, 'a correction email could not be sent'),
    });
  },
  // OID4VCI (issue 31): both formats are made by the proof module, bound to the key proof's holder.
  oid4vci: async ({ deps, get }) => {
    const proof = await get('proof');
    return (await load.oid4vci()).createOid4vciService({
      db: deps.db,
      publicBaseUrl: deps.config.publicBaseUrl,
      now: deps.now,
      makers: {
        ldpVc: (input) => proof.boundSigner(input),
        sdJwt: async (input) => {
          const bind = await proof.sdJwtVcIssuer(input);
          return (holderJwk) => bind({ ...holderJwk });
        },
      },
    });
  },
  wallet: async ({ deps, get }) =>
    (await load.wallet()).createWalletService({
      db: deps.db,
      proof: await get('proof'),
      publicBaseUrl: deps.config.publicBaseUrl,
      now: deps.now,
    }),
};

// A service this process did not build: any use of it is a bug of the command that left it out.
function absent<T>(name: string): T {
  return new Proxy({} as object, {
    get(_target, prop) {
      if (prop === 'then') return undefined;
      throw new Error(`the ${name} service was not built for this command (Command.services)`);
    },
  }) as T;
}

/**
 * The services of this process: all of them (the server, workers, tests), or only `only` and what
 * they need (a certsvc command).
 */
export async function createServices(deps: ServiceDeps, only: readonly ServiceName[] = SERVICE_NAMES) {
  const { config, metrics } = deps;
  // The renderer's and the mail transport's modules only for the services that use them.
  const all = only === SERVICE_NAMES;
  const [pdf, transports] = await Promise.all([
    only.some((n) => THREADED.includes(n)) ? import('./pdf/pdf-renderer.js') : undefined,
    all || only.some((n) => MAILING.includes(n)) ? import('./modules/emails/mail-transport.js') : undefined,
  ]);
  const newTransport = (): MailTransport =>
    config.smtpUrl
      ? transports!.createSmtpTransport(config.smtpUrl, config.smtp)
      : transports!.createFileTransport(path.join(config.dataDir, 'mail'));
  let mailTransport: MailTransport | undefined;
  // Worker threads start on first use, so CLI commands that render nothing never pay for them.
  let renderer: PdfRenderer | undefined;
  // The checks of designs and uploads, in threads of their own (pdf/file-checker.ts).
  let checker: FileChecker | undefined;
  const importWorkers = new Set<ImportWorker>();
  const built = new Map<ServiceName, Promise<unknown>>();
  const parts: Parts = {
    deps,
    get: (name) => {
      if (!built.has(name)) built.set(name, BUILD[name](parts));
      return built.get(name) as Promise<ServiceMap[typeof name]>;
    },
    renderer: () => (renderer ??= timedRenderer(pdf!.createPdfRenderer(), metrics)),
    checker: () => (checker ??= pdf!.createFileChecker()),
    mailTransport: () => (mailTransport ??= newTransport()),
    importWorkers,
  };
  await Promise.all(only.map((name) => parts.get(name)));
  const services = {} as ServiceMap;
  for (const name of SERVICE_NAMES) {
    (services as Record<ServiceName, unknown>)[name] = built.has(name) ? await built.get(name) : absent(name);
  }
  const workers = all ? await loadWorkers() : undefined;

  return {
    ...services,
    // The server starts the PDF workers at boot so that the first request does not pay for it.
    warmUp(): void {
      parts.renderer();
      parts.checker();
    },
    // Issues imports' chunks in this process (beside the other instances' workers).
    startImportWorker(): ImportWorker {
      const worker = workers!.startImportWorker({ imports: services.imports, logger: deps.logger });
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
      const worker = workers!.startEmailWorker({
        db: deps.db,
        transport,
        mailFrom: config.mailFrom,
        publicBaseUrl: config.publicBaseUrl,
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
    // After the HTTP server drained: the verifications counted in memory are written here.
    async close() {
      const verify = built.has('verify') ? (built.get('verify') as Promise<ServiceMap['verify']>) : undefined;
      await Promise.all([
        renderer?.close(),
        checker?.close(),
        mailTransport?.close(),
        verify?.then((v) => v.close()),
      ]);
    },
  };
}

// The services that send account mail at once (and so need a transport).
const MAILING: readonly ServiceName[] = ['accountMail', 'recipients', 'corrections'];

// The services that start render or file-check threads (and what needs them).
const THREADED: readonly ServiceName[] = [
  'templates',
  'uploads',
  'badgeImages',
  'designPreview',
  'issue',
  'imports',
  'corrections',
];

async function loadWorkers() {
  const [email, imports] = await Promise.all([
    import('./modules/emails/email.worker.js'),
    import('./modules/imports/import.worker.js'),
  ]);
  return { startEmailWorker: email.startEmailWorker, startImportWorker: imports.startImportWorker };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
