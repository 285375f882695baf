import type { AccountView } from '../modules/accounts/accounts.service.js';
import { cliDoer, deps, id, type Command } from './command.js';
import { CliError, print } from './output.js';

// An account's settings about its certificates' public life (issue 19): shown, and changed by the
// options given; the rules on the values are the accounts service's.

function lines(a: AccountView): string[] {
  return [
    `Account ${a.name}: ${a.id}`,
    `LinkedIn organisation id: ${a.settings.linkedinOrganizationId ?? 'none (Add to LinkedIn names the issuer)'}`,
    `Public download: ${a.settings.publicDownload ? 'on (the verification page offers the PDF)' : 'off'}`,
  ];
}

function onOff(value: string | boolean | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new CliError(`--public-download must be on or off, got "${String(value)}"`, 2);
}

function profileLines(a: AccountView): string[] {
  return [
    `Account ${a.name}: ${a.id}`,
    `Website: ${a.website ?? 'none'}`,
    `Contact email: ${a.contactEmail ?? 'none'}`,
    `Default language: ${a.defaultLanguage}`,
    `Logo: ${a.logo ? `${a.logo.type}, ${a.logo.size} bytes, sha256 ${a.logo.sha256}` : 'none'}`,
  ];
}

export const accountSettingsCommands: Command[] = [
  // The organisation's profile (decisions 21), through the accounts service as Settings >
  // Organisation: a new name applies to what is issued from then on. An empty value clears the
  // website or the contact email.
  {
    path: ['account', 'update'],
    services: ['accounts'],
    usage: 'account update ACCOUNT_ID [--name N] [--website URL] [--contact-email E]',
    positionals: ['ACCOUNT_ID'],
    options: { name: { type: 'string' }, website: { type: 'string' }, 'contact-email': { type: 'string' } },
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const text = (name: string) => {
        const value = ctx.values[name];
        return typeof value === 'string' ? value : undefined;
      };
      const account = await deps(ctx).services.accounts.updateProfile(
        accountId,
        { name: text('name'), website: text('website'), contactEmail: text('contact-email') },
        cliDoer(),
      );
      print(ctx.io, ctx.json, account, profileLines(account));
    },
  },
  {
    path: ['account', 'settings'],
    services: ['accounts'],
    usage: 'account settings ACCOUNT_ID [--linkedin-organization-id ID|none] [--public-download on|off]',
    positionals: ['ACCOUNT_ID'],
    options: { 'linkedin-organization-id': { type: 'string' }, 'public-download': { type: 'string' } },
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const linkedin = ctx.values['linkedin-organization-id'];
      const publicDownload = onOff(ctx.values['public-download']);
      const accounts = deps(ctx).services.accounts;
      const account =
        typeof linkedin === 'string' || publicDownload !== undefined
          ? await accounts.updateSettings(cliDoer(), accountId, {
              linkedinOrganizationId: typeof linkedin === 'string' ? linkedin : undefined,
              publicDownload,
            })
          : await accounts.get(accountId);
      print(ctx.io, ctx.json, account, lines(account));
    },
  },
];
