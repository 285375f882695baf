import type { SigningKeyView } from '../modules/credentials/credentials.service.js';
import { deps, id, type Command, type CommandContext } from './command.js';
import { CliError, print } from './output.js';

// Portable proof (docs/proof.md): the accounts' signing keys (list, rotate; public keys only, the
// private ones never leave the database sealed) and the credentials backfill.

function line(k: SigningKeyView): string {
  return `${k.id}  ${k.current ? 'current' : `retired ${k.retiredAt}`}  created ${k.createdAt}  ${k.publicKeyMultibase}`;
}

function needsSecret(ctx: CommandContext): void {
  if (!deps(ctx).services.credentials.canSign) {
    throw new CliError(
      'SIGNING_KEYS_SECRET is not set: it seals the signing keys (use the one the servers use; see docs/proof.md)',
      2,
    );
  }
}

export const proofCommands: Command[] = [
  {
    path: ['signing-key', 'list'],
    usage: 'signing-key list ACCOUNT_ID',
    positionals: ['ACCOUNT_ID'],
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const keys = await deps(ctx).services.credentials.listKeys(accountId);
      const did = deps(ctx).services.credentials.issuerDid(accountId);
      print(ctx.io, ctx.json, { did, data: keys }, [
        `Issuer ${did}`,
        ...(keys.length === 0 ? ['No signing key yet: one is made at the first issue'] : keys.map(line)),
      ]);
    },
  },
  {
    path: ['signing-key', 'rotate'],
    usage: 'signing-key rotate ACCOUNT_ID',
    positionals: ['ACCOUNT_ID'],
    async run(ctx) {
      needsSecret(ctx);
      const key = await deps(ctx).services.credentials.rotate(id(ctx.args[0], 'ACCOUNT_ID'));
      print(ctx.io, ctx.json, key, [
        `New current signing key ${key.id} (${key.publicKeyMultibase})`,
        'Credentials issued from now on use it, on every instance; those signed before keep verifying.',
      ]);
    },
  },
  {
    path: ['credentials', 'backfill'],
    usage: 'credentials backfill [--account ACCOUNT_ID]',
    positionals: [],
    options: { account: { type: 'string' } },
    async run(ctx) {
      needsSecret(ctx);
      const account =
        typeof ctx.values.account === 'string' ? id(ctx.values.account, '--account') : undefined;
      const { made } = await deps(ctx).services.credentials.backfill({ accountId: account });
      print(ctx.io, ctx.json, { made }, [
        made === 0
          ? 'Every certificate has its credential'
          : `Made and signed ${made} credential(s) for certificates issued before credentials existed`,
      ]);
    },
  },
];
