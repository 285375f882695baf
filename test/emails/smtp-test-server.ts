import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export interface ReceivedMail {
  mailFrom: string | undefined;
  rcptTo: string[];
  raw: Buffer;
  /** The session was upgraded with STARTTLS. */
  secure: boolean;
  /** The user that authenticated, if any. */
  user: string | undefined;
}

export interface TestSmtpServer {
  url: string;
  port: number;
  received: ReceivedMail[];
  /** Every RCPT TO command the server saw, accepted or not. */
  rcptCommands: string[];
  /** Messages whose DATA began (including refused and held ones). */
  dataStarted: number;
  /** Every AUTH the server received, with whether it came over TLS. */
  auths: { user: string; secure: boolean }[];
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
  /**
   * Take the first `count` messages in full (they count as received) and then drop the connection
   * instead of answering: the client cannot know the message arrived, as when a network drops.
   */
  dropAfterData?: number;
  /** Require AUTH with these credentials (accepted over plain text too, so a client leak is seen). */
  auth?: { user: string; pass: string };
  /** Offer STARTTLS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
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
  const auths: { user: string; secure: boolean }[] = [];
  let failuresLeft = opts.failFirst?.count ?? 0;
  let dropsLeft = opts.dropAfterData ?? 0;
  // Raw sockets by client port, to drop a session's connection (also under STARTTLS).
  const sockets = new Map<number, Socket>();
  let releaseGate: () => void = () => undefined;
  const gate = opts.gated ? new Promise<void>((resolve) => (releaseGate = resolve)) : Promise.resolve();
  const state = { dataStarted: 0 };
  const server = new SMTPServer({
    authOptional: opts.auth === undefined,
    allowInsecureAuth: true,
    disabledCommands: opts.tls ? [] : ['STARTTLS'],
    ...(opts.tls ? { key: opts.tls.key, cert: opts.tls.cert } : {}),
    logger: false,
    // Pooled clients keep idle connections open: do not wait 30 s for them on close().
    closeTimeout: 500,
    onAuth(auth, session, callback) {
      auths.push({ user: auth.username ?? '', secure: session.secure });
      if (auth.username === opts.auth?.user && auth.password === opts.auth?.pass)
        return callback(null, { user: auth.username });
      callback(smtpError('invalid credentials (test)', 535));
    },
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
            secure: session.secure,
            user: typeof session.user === 'string' ? session.user : undefined,
          });
          if (dropsLeft > 0) {
            dropsLeft--;
            sockets.get(session.remotePort)?.destroy();
            return;
          }
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
  server.server.on('connection', (socket: Socket) => {
    const port = socket.remotePort ?? 0;
    sockets.set(port, socket);
    socket.once('close', () => sockets.delete(port));
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    rcptCommands,
    auths,
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
