import type { MemberView } from '../modules/users/team.service.js';
import { ROLES } from '../modules/shared/roles.js';
import { cliDoer, deps, id, required, type Command, type CommandContext } from './command.js';
import { print } from './output.js';

// The team of an account from the terminal (decisions 21): its users, their roles, removals and
// password reset links. The CLI acts as an owner; the team service holds the rules (an account
// keeps an owner) and records each change in the audit trail as `cli`.

const asOwner = () => ({ ...cliDoer(), role: 'owner' as const });
const roleOption = { role: { type: 'string' } } as const;
const emailOption = { email: { type: 'string' } } as const;

function memberLine(m: MemberView): string {
  const seen = m.lastSignInAt ? `last sign-in ${m.lastSignInAt}` : 'never signed in';
  return `${m.id}  ${m.role.padEnd(8)}  ${m.email}  ${seen}  two-factor ${m.twoFactor ? 'on' : 'off'}`;
}

const team = (ctx: CommandContext) => deps(ctx).services.team;

export const teamCommands: Command[] = [
  {
    path: ['user', 'create'],
    services: ['users'],
    usage: `user create ACCOUNT_ID --email EMAIL [--role ${ROLES.join('|')}]   (password from standard input, or generated and printed once)`,
    positionals: ['ACCOUNT_ID'],
    options: { ...emailOption, ...roleOption },
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const email = required(ctx, 'email');
      const piped = ctx.io.readStdin ? (await ctx.io.readStdin()).replace(/\r?\n$/, '') : '';
      const role = typeof ctx.values.role === 'string' ? ctx.values.role : undefined;
      const { user, generatedPassword } = await deps(ctx).services.users.create(
        { accountId, email, password: piped === '' ? undefined : piped, role },
        cliDoer(),
      );
      print(ctx.io, ctx.json, generatedPassword ? { ...user, password: generatedPassword } : user, [
        `Created user ${user.email} (${user.role}) for account ${user.accountId}: ${user.id}`,
        ...(generatedPassword
          ? [`Password (shown only now): ${generatedPassword}`]
          : ['Password: as given on standard input']),
      ]);
    },
  },
  {
    path: ['user', 'list'],
    services: ['team', 'accounts'],
    usage: 'user list ACCOUNT_ID',
    positionals: ['ACCOUNT_ID'],
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      await deps(ctx).services.accounts.get(accountId);
      const { members, invitations } = await team(ctx).list(accountId);
      print(ctx.io, ctx.json, { data: members, invitations }, [
        ...(members.length === 0 ? ['No users'] : members.map(memberLine)),
        ...invitations.map((i) => `invited  ${i.role.padEnd(8)}  ${i.email}  until ${i.expiresAt}`),
      ]);
    },
  },
  {
    path: ['user', 'remove'],
    services: ['team', 'accounts'],
    usage: 'user remove ACCOUNT_ID --email EMAIL   (their sessions end at once; their API keys stay)',
    positionals: ['ACCOUNT_ID'],
    options: emailOption,
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const member = await team(ctx).memberByEmail(accountId, required(ctx, 'email'));
      const removed = await team(ctx).remove(accountId, asOwner(), member.id);
      print(ctx.io, ctx.json, { removed }, [
        `Removed ${removed.email} (${removed.role}): their sessions ended`,
      ]);
    },
  },
  {
    path: ['user', 'role'],
    services: ['team', 'accounts'],
    usage: `user role ACCOUNT_ID --email EMAIL --role ${ROLES.join('|')}`,
    positionals: ['ACCOUNT_ID'],
    options: { ...emailOption, ...roleOption },
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const member = await team(ctx).memberByEmail(accountId, required(ctx, 'email'));
      const user = await team(ctx).changeRole(accountId, asOwner(), member.id, required(ctx, 'role'));
      print(ctx.io, ctx.json, { user, previousRole: member.role }, [
        `${user.email}: ${member.role} -> ${user.role}`,
      ]);
    },
  },
  {
    path: ['user', 'reset-password'],
    services: ['team', 'accounts'],
    usage: 'user reset-password ACCOUNT_ID --email EMAIL   (prints a single-use link valid one hour)',
    positionals: ['ACCOUNT_ID'],
    options: emailOption,
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const link = await team(ctx).resetLink(accountId, required(ctx, 'email'));
      print(ctx.io, ctx.json, link, [
        `Password reset link for ${link.user.email} (single use, until ${link.expiresAt}):`,
        link.url,
      ]);
    },
  },
];
