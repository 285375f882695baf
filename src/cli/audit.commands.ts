import { deps, id, type Command } from './command.js';
import { print } from './output.js';

// The audit trail's check (decisions 21): walks an account's chain of events; exit 0 when it holds,
// exit 1 naming the first event edited, deleted, inserted or moved.
export const auditCommands: Command[] = [
  {
    path: ['audit', 'verify'],
    services: ['audit'],
    usage: 'audit verify ACCOUNT_ID',
    positionals: ['ACCOUNT_ID'],
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const check = await deps(ctx).services.audit.verify(accountId);
      if (check.ok) {
        print(ctx.io, ctx.json, check, [
          `The audit trail of account ${accountId} holds: ${check.events.toLocaleString('en-US')} events, each chained to the one before it.`,
        ]);
        return 0;
      }
      const { broken } = check;
      const which = broken.id ? `event ${broken.seq} (${broken.id})` : `event ${broken.seq}`;
      print(ctx.io, ctx.json, check, [
        `The audit trail of account ${accountId} is broken at ${which}: ${broken.problem}.`,
        `The ${check.events.toLocaleString('en-US')} events before it chain as written.`,
      ]);
      return 1;
    },
  },
];
