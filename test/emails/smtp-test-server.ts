import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export interface ReceivedMail {
  mailFrom: string | undefined;
  rcptTo: string[];
  raw: Buffer;
}

export interface TestSmtpServer {
  url: string;
  port: number;
  received: ReceivedMail[];
  /** Every RCPT TO command the server saw, accepted or not. */
  rcptCommands: string[];
  /** Messages whose DATA began (including refused and held ones). */
  dataStarted: number;
  /** Lets held messages through (see `gated`). */
  openGate(): void;
  close(): Promise<void>;
}

export interface SmtpServerOptions {
  /** Refuse every recipient with this code. */
  rcptResponseCode?: number;
  /** Answer the first `count` messages after DATA with `code` (e.g. 451), then accept. */
  failFirst?: { count: number; code: number };
  /** Wait this long before answering each message (a slow server). */
  delayMs?: number;
  /** Hold every message after DATA until openGate() is called. */
  gated?: boolean;
  /** Never answer DATA: the client hangs until it times out or dies. */
  neverAnswerData?: boolean;
  /** Listen on this port (0: any free port). */
  port?: number;
}

function smtpError(message: string, responseCode: number): Error {
  const err = new Error(message) as Error & { responseCode: number };
  err.responseCode = responseCode;
  return err;
}

/** A real SMTP server on 127.0.0.1, with knobs for the failure modes the email tests need. */
export async function startSmtpServer(opts: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const rcptCommands: string[] = [];
  let failuresLeft = opts.failFirst?.count ?? 0;
  let releaseGate: () => void = () => undefined;
  const gate = opts.gated ? new Promise<void>((resolve) => (releaseGate = resolve)) : Promise.resolve();
  const state = { dataStarted: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Pooled clients keep idle connections open: do not wait 30 s for them on close().
    closeTimeout: 500,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      rcptCommands.push(address.address);
      if (opts.rcptResponseCode === undefined) return callback();
      callback(smtpError('recipient refused for test', opts.rcptResponseCode));
    },
    onData(stream, session, callback) {
      state.dataStarted++;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (opts.neverAnswerData) return;
        void (async () => {
          await gate;
          if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
          if (failuresLeft > 0 && opts.failFirst) {
            failuresLeft--;
            return callback(smtpError('try again later (test)', opts.failFirst.code));
          }
          const mailFrom = session.envelope.mailFrom;
          received.push({
            mailFrom: mailFrom ? mailFrom.address : undefined,
            rcptTo: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
          });
          callback();
        })();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  // Later socket errors (a client killed mid-session) must not crash the test process.
  server.on('error', () => undefined);
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    rcptCommands,
    get dataStarted() {
      return state.dataStarted;
    },
    openGate: () => releaseGate(),
    close: () =>
      new Promise<void>((resolve) => {
        releaseGate();
        server.close(() => resolve());
      }),
  };
}
