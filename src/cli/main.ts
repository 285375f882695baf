import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import type { Deps } from '../deps.js';
import { embeddedDatabaseExists } from '../platform/db/embedded.js';
import { AppError } from '../platform/errors.js';
import { commands, type Command } from './commands.js';
import { CliError, type Io } from './output.js';

const HELP = `certsvc: the certificate issuing service

Usage: certsvc <command> [options]   (every command accepts --json)

Without DATABASE_URL the commands use the embedded database in DATA_DIR (default ./data) and say so
on standard error; only serve and migrate make a new one there, the others need --create.

  serve [--no-worker]                       run the HTTP server (and the email worker)
  worker                                    run the email worker alone
  migrate                                   apply database migrations
  account create --name NAME --plan PLAN [--monthly-limit N]
  account list
  account show ACCOUNT_ID                   plan, limits, contract, keys, usage
  account set-plan ACCOUNT_ID PLAN
  account settings ACCOUNT_ID [--linkedin-organization-id ID|none] [--public-download on|off]
  contract create ACCOUNT_ID [--starts ISO] [--ends ISO] [--no-email]
  contract end CONTRACT_ID
  key create ACCOUNT_ID [--name NAME] [--scopes a,b,c]
  key list ACCOUNT_ID
  key revoke KEY_ID
  template create ACCOUNT_ID --file DESIGN.json
  template list ACCOUNT_ID
  template show TEMPLATE_ID
  template update TEMPLATE_ID --file DESIGN.json   same id; new certificates use the new design
  template archive TEMPLATE_ID
  template preview --file DESIGN.json --out FILE.pdf
  user create ACCOUNT_ID --email EMAIL [--role ROLE]  password from standard input, or generated and printed once;
                                            ROLE owner (default), admin, issuer, designer or viewer
  user list ACCOUNT_ID                      the users with role, last sign-in, two-factor; pending invitations
  user remove ACCOUNT_ID --email EMAIL      their sessions end at once; their API keys stay the account's
  user role ACCOUNT_ID --email EMAIL --role ROLE   an account always keeps an owner
  user reset-password ACCOUNT_ID --email EMAIL     prints a single-use link valid one hour
  admin create --email EMAIL                an operator of this instance (signs in at /admin, two-factor
                                            required); password from standard input, or generated and printed once
  demo                                      sample account, key, template on an empty database
  import ACCOUNT_ID --template TEMPLATE_ID --csv FILE  issue a CSV of up to 50,000 rows as an import job, with progress
  signing-key list ACCOUNT_ID               the account's DID and signing keys (public keys only)
  signing-key rotate ACCOUNT_ID             a new current signing key; older credentials keep verifying
  signing-key import-pdf ACCOUNT_ID --p12 FILE  sign PDFs with a PKCS#12 certificate (passphrase on stdin)
  credentials backfill [--account ACCOUNT_ID]  signed credentials for certificates issued before them
  audit verify ACCOUNT_ID                   check the account's audit trail; exit 1 naming the first broken event
  backup --out FILE                         a backup of the embedded database while the service runs
                                            (a new file; with DATABASE_URL use pg_dump)
  restore --from FILE                       a backup into an empty DATA_DIR; then certsvc serve runs on it

Configuration comes from the environment: see README.md.`;

function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i]![j] = Math.min(
        d[i - 1]![j]! + 1,
        d[i]![j - 1]! + 1,
        d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
  return d[a.length]![b.length]!;
}

function suggest(input: string, options: string[], prefix = ''): string {
  const best = options.map((o) => ({ o, d: distance(input, o) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= 2 ? ` Did you mean "${prefix}${best.o}"?` : '';
}

// The data folder as people typed it: relative to the current folder when inside it (./data).
function shownDir(dir: string): string {
  const rel = path.relative(process.cwd(), dir);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? dir : `./${rel}`;
}

// On the embedded default: says which data folder the command uses, and refuses to make a new
// database there unless the command is one that prepares databases or --create was given (a
// command run without the server's DATA_DIR used to answer from a new, empty database in ./data).
function embeddedDataDir(config: Config, command: Command, create: boolean, io: Io): void {
  const shown = shownDir(config.dataDir);
  if (!command.createsDb && !create && !embeddedDatabaseExists(config.dataDir)) {
    throw new CliError(
      `no database at ${shown}: start the server first, or set DATA_DIR` +
        ` (to make a new, empty one there, add --create)`,
      2,
    );
  }
  io.err(
    `certsvc: embedded database in ${shown}` +
      (config.dataDirSet ? ' (DATA_DIR)' : ' (DATA_DIR unset: the default ./data)'),
  );
}

function findCommand(argv: string[]): { command: Command; rest: string[] } {
  const [first, second] = argv;
  const tops = [...new Set(commands.map((c) => c.path[0]!))];
  if (!first || first.startsWith('-')) throw new CliError(`a command is required.\n\n${HELP}`, 2);
  if (!tops.includes(first))
    throw new CliError(`unknown command "${first}".${suggest(first, tops)} Run certsvc --help.`, 2);
  const group = commands.filter((c) => c.path[0] === first);
  const single = group.find((c) => c.path.length === 1);
  if (single) return { command: single, rest: argv.slice(1) };
  const subs = group.map((c) => c.path[1]!);
  if (!second || second.startsWith('-'))
    throw new CliError(`"${first}" needs a subcommand: ${subs.join(', ')}`, 2);
  const command = group.find((c) => c.path[1] === second);
  if (!command)
    throw new CliError(
      `unknown command "${first} ${second}".${suggest(second, subs, `${first} `)} Known: ${subs.join(', ')}`,
      2,
    );
  return { command, rest: argv.slice(2) };
}

export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.out(HELP);
    return argv.length === 0 ? 2 : 0;
  }
  let deps: Deps | undefined;
  try {
    const { command, rest } = findCommand(argv);
    const options = {
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      create: { type: 'boolean' },
      ...command.options,
    } as ParseArgsConfig['options'];
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
    } catch (err) {
      throw new CliError(
        `${(err as Error).message.replace(/\. To specify a positional.*$/s, '')}\nUsage: certsvc ${command.usage}`,
        2,
      );
    }
    const values = parsed.values as Record<string, string | boolean | undefined>;
    if (values.help) {
      io.out(`Usage: certsvc ${command.usage}`);
      return 0;
    }
    if (parsed.positionals.length !== command.positionals.length) {
      const missing = command.positionals.slice(parsed.positionals.length);
      throw new CliError(
        missing.length > 0
          ? `missing ${missing.join(' ')}\nUsage: certsvc ${command.usage}`
          : `unexpected argument "${parsed.positionals[command.positionals.length]}"\nUsage: certsvc ${command.usage}`,
        2,
      );
    }
    const config = loadConfig();
    await command.precheck?.(config);
    const json = values.json === true;
    if (command.needsDb === false) {
      return (await command.run({ config, io, json, values, args: parsed.positionals })) ?? 0;
    }
    if (config.databaseUrl === undefined) {
      embeddedDataDir(config, command, values.create === true, io);
      io = { ...io, jsonFields: { ...io.jsonFields, dataDir: config.dataDir } };
    }
    // Loaded only by the commands that open the database (the services import the whole service).
    const [{ default: pino }, { createDeps, createLogger }] = await Promise.all([
      import('pino'),
      import('../deps.js'),
    ]);
    // Servers log JSON lines on stdout; other commands (and servers with --json, whose stdout is one
    // JSON object) log warnings and errors on stderr.
    const server = ['serve', 'worker'].includes(command.path[0]!);
    const logLevel = server ? config.logLevel : 'warn';
    const toStderr = !server || json ? pino.destination({ fd: 2, sync: true }) : undefined;
    deps = await createDeps(config, {
      logger: createLogger({ ...config, logLevel }, toStderr),
      migrate: command.path[0] !== 'migrate',
      services: command.services,
    });
    return (await command.run({ config, io, json, values, args: parsed.positionals, deps })) ?? 0;
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`certsvc: ${err.message}`);
      return err.exitCode;
    }
    if (err instanceof AppError || err instanceof ConfigError) {
      io.err(`certsvc: ${err.message}`);
      return 1;
    }
    // Infrastructure failures (database unreachable ...): the message, not a stack trace.
    io.err(`certsvc: ${(err as Error).message ?? String(err)}`);
    return 1;
  } finally {
    await deps?.close().catch(() => undefined);
  }
}

function defaultIo(): Io {
  return {
    out: (t) => process.stdout.write(`${t}\n`),
    tty: process.stdout.isTTY === true,
    write: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(`${t}\n`),
    // Piped input only: on a terminal nothing is read (the password is generated instead).
    async readStdin() {
      if (process.stdin.isTTY) return '';
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    async readSecret(prompt) {
      if (!process.stdin.isTTY) {
        const chunks: Buffer[] = [];
        for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
      }
      return readHidden(prompt);
    },
  };
}

// Reads a line from the terminal without echoing it.
function readHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let value = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (text: string) => {
      for (const ch of text) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003') return done(new CliError('interrupted', 130));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
