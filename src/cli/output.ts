// Output of CLI commands: one JSON object with --json, readable lines otherwise.
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  readStdin?: () => Promise<string>;
  /** Standard output is a terminal: progress is drawn in place (`write`, no newline). */
  tty?: boolean;
  write?: (text: string) => void;
  /** A secret: typed without echo on a terminal, else the first line of standard input. */
  readSecret?: (prompt: string) => Promise<string>;
  /** Fields added to every --json object (the embedded database's `dataDir`). */
  jsonFields?: Record<string, unknown>;
}

export function print(io: Io, json: boolean, value: object, lines: string[]) {
  if (json) io.out(JSON.stringify({ ...value, ...io.jsonFields }));
  else io.out(lines.join('\n'));
}
