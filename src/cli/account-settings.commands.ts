import type { AccountView } from '../modules/accounts/accounts.service.js';
import { deps, id, type Command } from './command.js';
import { print } from './output.js';

// An account's settings about its certificates' public life (issue 19): shown, and changed by the
// options given; the rules on the values are the accounts service's.

function lines(a: AccountView): string[] {
  return [
    `Account ${a.name}: ${a.id}`,
    `LinkedIn organisation id: ${a.settings.linkedinOrganizationId ?? 'none (Add to LinkedIn names the issuer)'}`,
  ];
}

export const accountSettingsCommands: Command[] = [
  {
    path: ['account', 'settings'],
    usage: 'account settings ACCOUNT_ID [--linkedin-organization-id ID|none]',
    positionals: ['ACCOUNT_ID'],
    options: { 'linkedin-organization-id': { type: 'string' } },
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const linkedin = ctx.values['linkedin-organization-id'];
      const accounts = deps(ctx).services.accounts;
      const account =
        typeof linkedin === 'string'
          ? await accounts.updateSettings(accountId, { linkedinOrganizationId: linkedin })
          : await accounts.get(accountId);
      print(ctx.io, ctx.json, account, lines(account));
    },
  },
];
