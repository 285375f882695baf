import { deps, required, type Command } from './command.js';
import { print } from './output.js';

// The instance's operators (decisions 21): people who run the service at /admin, separate from any
// account. The password is read from standard input, or generated and printed once (as for users).
export const adminCommands: Command[] = [
  {
    path: ['admin', 'create'],
    services: ['operators'],
    usage: 'admin create --email EMAIL   (password from standard input, or generated and printed once)',
    positionals: [],
    options: { email: { type: 'string' } },
    async run(ctx) {
      const email = required(ctx, 'email');
      const piped = ctx.io.readStdin ? (await ctx.io.readStdin()).replace(/\r?\n$/, '') : '';
      const { operator, generatedPassword } = await deps(ctx).services.operators.create({
        email,
        password: piped === '' ? undefined : piped,
      });
      print(ctx.io, ctx.json, generatedPassword ? { ...operator, password: generatedPassword } : operator, [
        `Created operator ${operator.email}: ${operator.id}`,
        ...(generatedPassword
          ? [`Password (shown only now): ${generatedPassword}`]
          : ['Password: as given on standard input']),
        `Sign in at ${ctx.config.publicBaseUrl}/admin; two-factor sign-in is set up at the first sign-in.`,
      ]);
    },
  },
];
