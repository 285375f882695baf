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

export const accountSettingsCommands: Command[] = [
  {
    path: ['account', 'settings'],
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
