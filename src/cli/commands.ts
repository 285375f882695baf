import { cliDoer, date, deps, id, required, type Command } from './command.js';
import { readDesignFile } from './design-file.js';
import { CliError, print } from './output.js';
import { accountSettingsCommands } from './account-settings.commands.js';
import { proofCommands } from './proof.commands.js';
import { importCommand } from './import.command.js';
import { adminCommands } from './admin.commands.js';
import { teamCommands } from './team.commands.js';
import { auditCommands } from './audit.commands.js';
import { backupCommands } from './backup.commands.js';

// The server (Fastify, the app), the PDF preview, the demo and the migrations are imported by the
// commands that use them only: loading them cost every other command about half a second
// (docs/benchmarks.md, "The certsvc command").
const serveModule = () => import('./serve.js');

export type { Command, CommandContext } from './command.js';

export const commands: Command[] = [
  {
    path: ['serve'],
    usage: 'serve [--no-worker]',
    positionals: [],
    options: { 'no-worker': { type: 'boolean' } },
    createsDb: true,
    precheck: async (config) => {
      const { checkPublicBaseUrl, checkSigningSecret } = await serveModule();
      checkPublicBaseUrl(config);
      checkSigningSecret(config);
    },
    run: async (ctx) =>
      (await serveModule()).serve(deps(ctx), {
        worker: ctx.values['no-worker'] !== true,
        io: ctx.io,
        json: ctx.json,
      }),
  },
  {
    path: ['worker'],
    usage: 'worker',
    positionals: [],
    run: async (ctx) =>
      (await serveModule()).serve(deps(ctx), { worker: true, http: false, io: ctx.io, json: ctx.json }),
  },
  {
    path: ['migrate'],
    usage: 'migrate',
    positionals: [],
    // Preparing a database is what it is for: on a DATA_DIR without one it makes it (and says where).
    createsDb: true,
    async run(ctx) {
      const { prepareDatabase } = await import('../deps.js');
      const { appliedMigrations } = await import('../platform/db/migrate.js');
      // createDeps skips migrations for this command, so that it can report what it applied.
      const applied = await prepareDatabase(deps(ctx).db, ctx.config);
      const names = await appliedMigrations(deps(ctx).db);
      print(ctx.io, ctx.json, { applied, migrations: names }, [
        applied.length > 0
          ? `Applied ${applied.join(', ')}; database is up to date (${names.length} migrations)`
          : `Database is up to date (${names.length} migrations: ${names.join(', ')})`,
      ]);
    },
  },
  {
    path: ['account', 'create'],
    services: ['operatorConsole'],
    usage: 'account create --name NAME --plan PLAN [--monthly-limit N]',
    positionals: [],
    options: { name: { type: 'string' }, plan: { type: 'string' }, 'monthly-limit': { type: 'string' } },
    async run(ctx) {
      const raw = ctx.values['monthly-limit'];
      if (raw !== undefined && !/^\d+$/.test(String(raw))) {
        throw new CliError(`--monthly-limit must be a whole number >= 0, got "${String(raw)}"`, 2);
      }
      // As the operator console's: the account and its audit event commit together.
      const account = await deps(ctx).services.operatorConsole.createAccount(cliDoer(), {
        name: required(ctx, 'name'),
        plan: required(ctx, 'plan'),
        monthlyLimit: raw === undefined ? null : Number(raw),
      });
      print(ctx.io, ctx.json, account, [`Created account ${account.name} (${account.plan}): ${account.id}`]);
    },
  },
  {
    path: ['account', 'list'],
    services: ['accounts'],
    usage: 'account list',
    positionals: [],
    async run(ctx) {
      const accounts = await deps(ctx).services.accounts.list();
      print(
        ctx.io,
        ctx.json,
        { data: accounts },
        accounts.length === 0
          ? ['No accounts: create one with certsvc account create --name NAME --plan PLAN']
          : accounts.map((a) => `${a.id}  ${a.plan.padEnd(10)}  ${a.name}  created ${a.createdAt}`),
      );
    },
  },
  {
    path: ['account', 'show'],
    services: ['accounts'],
    usage: 'account show ACCOUNT_ID',
    positionals: ['ACCOUNT_ID'],
    async run(ctx) {
      const a = await deps(ctx).services.accounts.overview(id(ctx.args[0], 'ACCOUNT_ID'));
      const limit = a.usage.limit === null ? 'unlimited' : String(a.usage.limit);
      print(ctx.io, ctx.json, a, [
        `Account ${a.name}: ${a.id}${a.suspendedAt ? ` (suspended since ${a.suspendedAt} by an operator)` : ''}`,
        `Plan: ${a.plan} (API access ${a.apiAccess ? 'yes' : 'no'}, email delivery ${a.emailDelivery ? 'yes' : 'no'})`,
        `Monthly limit: ${limit}${a.monthlyLimit !== null ? ' (set on the account)' : ''}`,
        `Contract: ${a.contract ? `${a.contract.id} from ${a.contract.startsAt} to ${a.contract.endsAt ?? 'open end'}` : 'none'}`,
        `Keys: ${a.keys.active} active, ${a.keys.revoked} revoked`,
        `Usage: ${a.usage.used} used of ${limit}${a.usage.remaining === null ? '' : `, ${a.usage.remaining} remaining`}; resets ${a.usage.resetAt}`,
      ]);
    },
  },
  {
    path: ['account', 'set-plan'],
    services: ['operatorConsole'],
    usage: 'account set-plan ACCOUNT_ID PLAN',
    positionals: ['ACCOUNT_ID', 'PLAN'],
    async run(ctx) {
      // As the operator console's plan change: the change and its audit event commit together.
      const account = await deps(ctx).services.operatorConsole.setPlan(
        cliDoer(),
        id(ctx.args[0], 'ACCOUNT_ID'),
        ctx.args[1]!,
      );
      print(ctx.io, ctx.json, account, [`Account ${account.id} is now on ${account.plan}`]);
    },
  },
  {
    path: ['contract', 'create'],
    services: ['operatorConsole'],
    usage: 'contract create ACCOUNT_ID [--starts ISO] [--ends ISO] [--no-email]',
    positionals: ['ACCOUNT_ID'],
    options: { starts: { type: 'string' }, ends: { type: 'string' }, 'no-email': { type: 'boolean' } },
    async run(ctx) {
      const contract = await deps(ctx).services.operatorConsole.createContract(cliDoer(), {
        accountId: id(ctx.args[0], 'ACCOUNT_ID'),
        startsAt: date(ctx.values.starts, 'starts'),
        endsAt: date(ctx.values.ends, 'ends') ?? null,
        emailDelivery: ctx.values['no-email'] !== true,
      });
      print(ctx.io, ctx.json, contract, [
        `Created partner contract ${contract.id} for account ${contract.accountId}`,
        `  from ${contract.startsAt} until ${contract.endsAt ?? 'further notice'}, email delivery ${contract.emailDelivery ? 'on' : 'off'}`,
      ]);
    },
  },
  {
    path: ['contract', 'end'],
    services: ['operatorConsole'],
    usage: 'contract end CONTRACT_ID',
    positionals: ['CONTRACT_ID'],
    async run(ctx) {
      const contract = await deps(ctx).services.operatorConsole.endContractById(
        cliDoer(),
        id(ctx.args[0], 'CONTRACT_ID'),
      );
      print(ctx.io, ctx.json, contract, [`Ended contract ${contract.id} at ${contract.endsAt}`]);
    },
  },
  {
    path: ['key', 'create'],
    services: ['keys'],
    usage: 'key create ACCOUNT_ID [--name NAME] [--scopes a,b,c]',
    positionals: ['ACCOUNT_ID'],
    options: { name: { type: 'string' }, scopes: { type: 'string' } },
    async run(ctx) {
      const scopes =
        typeof ctx.values.scopes === 'string' ? ctx.values.scopes.split(',').map((s) => s.trim()) : undefined;
      const key = await deps(ctx).services.keys.create(
        id(ctx.args[0], 'ACCOUNT_ID'),
        { name: typeof ctx.values.name === 'string' ? ctx.values.name : undefined, scopes },
        cliDoer(),
      );
      print(ctx.io, ctx.json, key, [
        `Created key ${key.id} (${key.scopes.join(', ')})`,
        `Key (shown only now, store it safely): ${key.key}`,
      ]);
    },
  },
  {
    path: ['key', 'list'],
    services: ['keys'],
    usage: 'key list ACCOUNT_ID',
    positionals: ['ACCOUNT_ID'],
    async run(ctx) {
      const keys = await deps(ctx).services.keys.list(id(ctx.args[0], 'ACCOUNT_ID'));
      print(
        ctx.io,
        ctx.json,
        { data: keys },
        keys.length === 0
          ? ['No keys']
          : keys.map(
              (k) =>
                `${k.id}  ${k.prefix}…  ${k.name ?? '-'}  [${k.scopes.join(',')}]  ${k.revokedAt ? `revoked ${k.revokedAt}` : `last used ${k.lastUsedAt ?? 'never'}`}`,
            ),
      );
    },
  },
  {
    path: ['key', 'revoke'],
    services: ['keys'],
    usage: 'key revoke KEY_ID',
    positionals: ['KEY_ID'],
    async run(ctx) {
      const key = await deps(ctx).services.keys.revoke(id(ctx.args[0], 'KEY_ID'), undefined, cliDoer());
      print(ctx.io, ctx.json, key, [`Revoked key ${key.id} (${key.prefix}…) at ${key.revokedAt}`]);
    },
  },
  {
    path: ['template', 'create'],
    services: ['templates'],
    usage: 'template create ACCOUNT_ID --file DESIGN.json',
    positionals: ['ACCOUNT_ID'],
    options: { file: { type: 'string' } },
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const design = await readDesignFile(required(ctx, 'file'));
      const template = await deps(ctx).services.templates.create(cliDoer(), accountId, design);
      print(ctx.io, ctx.json, template, [`Created template ${template.name}: ${template.id}`]);
    },
  },
  {
    path: ['template', 'list'],
    services: ['templates'],
    usage: 'template list ACCOUNT_ID',
    positionals: ['ACCOUNT_ID'],
    async run(ctx) {
      const templates = await deps(ctx).services.templates.listAll(id(ctx.args[0], 'ACCOUNT_ID'));
      print(
        ctx.io,
        ctx.json,
        { data: templates },
        templates.length === 0
          ? ['No templates']
          : templates.map(
              (t) =>
                `${t.id}  ${t.status.padEnd(8)}  ${t.name}  [${t.fields.map((f) => f.key).join(',')}]  updated ${t.updatedAt}`,
            ),
      );
    },
  },
  {
    path: ['template', 'show'],
    services: ['templates'],
    usage: 'template show TEMPLATE_ID',
    positionals: ['TEMPLATE_ID'],
    async run(ctx) {
      const template = await deps(ctx).services.templates.show(id(ctx.args[0], 'TEMPLATE_ID'));
      print(ctx.io, ctx.json, template, [
        `Template ${template.name} (${template.status}): ${template.id}`,
        `Account: ${template.accountId}`,
        `Title: ${template.design.title ?? '(the template name)'}`,
        `Fields: ${template.fields.map((f) => `${f.key}${f.required ? '' : '?'} "${f.label}"`).join(', ') || 'none'}`,
        `Page: ${template.design.page.width} x ${template.design.page.height} pt, ${template.design.elements.length} elements`,
        `Created ${template.createdAt}, updated ${template.updatedAt}`,
      ]);
    },
  },
  {
    path: ['template', 'update'],
    services: ['templates'],
    usage: 'template update TEMPLATE_ID --file DESIGN.json',
    positionals: ['TEMPLATE_ID'],
    options: { file: { type: 'string' } },
    async run(ctx) {
      const templateId = id(ctx.args[0], 'TEMPLATE_ID');
      const design = await readDesignFile(required(ctx, 'file'));
      const template = await deps(ctx).services.templates.update(cliDoer(), templateId, design);
      print(ctx.io, ctx.json, template, [
        `Updated template ${template.name}: ${template.id} (new certificates use the new design; issued ones keep their PDFs)`,
      ]);
    },
  },
  {
    path: ['template', 'archive'],
    services: ['templates'],
    usage: 'template archive TEMPLATE_ID',
    positionals: ['TEMPLATE_ID'],
    async run(ctx) {
      const template = await deps(ctx).services.templates.archive(cliDoer(), id(ctx.args[0], 'TEMPLATE_ID'));
      print(ctx.io, ctx.json, { ...template, status: 'archived' }, [`Archived template ${template.id}`]);
    },
  },
  {
    path: ['template', 'preview'],
    usage: 'template preview --file DESIGN.json --out FILE.pdf',
    positionals: [],
    options: { file: { type: 'string' }, out: { type: 'string' } },
    needsDb: false,
    async run(ctx) {
      const { previewTemplate } = await import('./preview.js');
      const result = await previewTemplate(required(ctx, 'file'), required(ctx, 'out'), ctx.config);
      print(ctx.io, ctx.json, result, [
        `Wrote ${result.out} (${result.bytes} bytes, sha256 ${result.sha256})`,
      ]);
    },
  },
  {
    path: ['demo'],
    usage: 'demo',
    positionals: [],
    async run(ctx) {
      const { createDemo, demoLines } = await import('./demo.js');
      const demo = await createDemo(deps(ctx));
      print(ctx.io, ctx.json, { id: demo.account.id, ...demo }, demoLines(demo));
    },
  },
  importCommand,
  ...proofCommands,
  ...accountSettingsCommands,
  ...adminCommands,
  ...teamCommands,
  ...auditCommands,
  ...backupCommands,
];
