import os from 'node:os';
import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.js';
import type { Deps } from '../deps.js';
import { UUID_PATTERN } from '../platform/ids.js';
import type { Doer } from '../platform/principal.js';
import type { ServiceName } from '../services.js';
import { CliError, type Io } from './output.js';

// What a command of the certsvc tool is, and the readers of its arguments that commands share.

export interface CommandContext {
  config: Config;
  io: Io;
  json: boolean;
  values: Record<string, string | boolean | undefined>;
  args: string[];
  deps?: Deps;
}

export interface Command {
  path: string[];
  usage: string;
  positionals: string[];
  options?: ParseArgsConfig['options'];
  needsDb?: boolean;
  /** The services it uses: only these are loaded (every one when absent; src/services.ts). */
  services?: ServiceName[];
  /** On the embedded default, makes the database when DATA_DIR has none (without `--create`). */
  createsDb?: boolean;
  /** Checks made before anything is opened or created (a refusal leaves no trace). */
  precheck?(config: Config): void | Promise<void>;
  run(ctx: CommandContext): Promise<number | void>;
}

const uuid = new RegExp(UUID_PATTERN);
export function id(value: string | undefined, what: string): string {
  if (!value || !uuid.test(value)) throw new CliError(`${what} must be a UUID, got "${value ?? ''}"`, 2);
  return value.toLowerCase();
}

export function required(ctx: CommandContext, name: string): string {
  const v = ctx.values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new CliError(`--${name} is required`, 2);
  return v;
}

// A calendar date (UTC midnight) or a timestamp with Z or an offset; impossible dates such as
// 2026-02-30 are refused rather than rolled over into the next month.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
export function date(value: string | boolean | undefined, name: string): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = ISO_DATE.exec(value);
  const d = new Date(value);
  const day = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (
    !m ||
    Number.isNaN(d.getTime()) ||
    day!.getUTCDate() !== Number(m[3]) ||
    day!.getUTCMonth() !== Number(m[2]) - 1
  ) {
    throw new CliError(
      `--${name} must be an ISO 8601 date (2026-01-31) or timestamp (2026-01-31T09:00:00Z), got "${value}"`,
      2,
    );
  }
  return d;
}

export const deps = (ctx: CommandContext) => ctx.deps!;

// Who the audit trail says made a change from the command line: the CLI, as this operating-system user.
export function cliDoer(): Doer {
  let label: string | null = null;
  try {
    label = os.userInfo().username;
  } catch {
    label = process.env.USER ?? null;
  }
  return { actor: { type: 'cli', id: null, label } };
}
