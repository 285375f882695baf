import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared/index.js';
import { nodemailerMessage } from './mail-headers.js';
import type { MailMessage } from './mail-message.js';

export interface MailTransport {
  send(msg: MailMessage): Promise<{ messageId: string }>;
  /** Cuts every open connection: the sends in flight fail at once (a worker that must stop now). */
  abort(): void;
  close(): Promise<void>;
}

export interface SmtpOptions {
  /** Bound on connecting, on the greeting, and on any wait for the server (SMTP_TIMEOUT_MS). */
  timeoutMs: number;
  /** Lets credentials go over a connection without TLS (SMTP_ALLOW_INSECURE_AUTH). */
  allowInsecureAuth: boolean;
}

/**
 * SMTP through a small connection pool. Timeouts are explicit so that a stuck server surfaces as a
 * transient error for the retry policy instead of holding a worker for minutes (nodemailer's socket
 * default is 10 minutes); query parameters in the URL override them. With credentials in an
 * `smtp://` URL, STARTTLS is required: a server that offers none makes the attempt fail before AUTH
 * (ETLS), so the password never crosses the network in clear, unless `allowInsecureAuth`.
 */
export function createSmtpTransport(url: string, opts: SmtpOptions): MailTransport {
  const fromUrl = parseConnectionUrl(url);
  // Nodemailer sets auth only when the URL carries a user or a password.
  const credentials = fromUrl.auth !== undefined;
  const tlsFirst = fromUrl.secure === true;
  const sockets = new Set<net.Socket>();
  const transporter = nodemailer.createTransport({
    pool: true,
    maxConnections: 5,
    maxMessages: 100,
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
    getSocket: (options, callback) => {
      const socket = openNoDelaySocket(options);
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      callback(null, { connection: socket });
    },
    ...fromUrl,
    ...(credentials && !tlsFirst && !opts.allowInsecureAuth ? { requireTLS: true, ignoreTLS: false } : {}),
  });
  return {
    async send(msg) {
      await transporter.sendMail(await nodemailerMessage(msg));
      return { messageId: msg.messageId };
    },
    abort() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      transporter.close();
    },
  };
}

/**
 * Opens the TCP connection for nodemailer with TCP_NODELAY. Nodemailer leaves Nagle's algorithm on,
 * so the small last segment of each message ("\r\n.\r\n") waits for the server's delayed ACK
 * (about 40 ms on Linux): that capped delivery at about 90 messages a second over 5 connections,
 * against 150-450 with it off (bench/email.bench.ts). The socket is handed over while still
 * connecting: nodemailer then waits for the greeting (greetingTimeout) and reports a failed connect
 * through its own socket error path (ESOCKET, transient), which also frees the pool slot; an error
 * passed to getSocket's callback would leave the slot taken for good. Nodemailer still does TLS (`secure`,
 * STARTTLS) on this socket, and a `proxy` in the URL replaces this hook with nodemailer's own (then
 * abort() has no connection to cut and stop() falls back to releasing the sends it holds).
 */
function openNoDelaySocket(options: {
  host?: string;
  port?: number | string;
  secure?: boolean;
  localAddress?: string;
}): net.Socket {
  return net.connect({
    host: options.host || 'localhost',
    port: Number(options.port) || (options.secure ? 465 : 587),
    noDelay: true,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
}

/**
 * The embedded default with no SMTP: each message is written as an RFC 822 `.eml` file under `dir`.
 * The file is written under a temporary name and renamed, so a reader never sees half a message.
 */
export function createFileTransport(dir: string): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  let ready: Promise<unknown> | undefined;
  return {
    async send(msg) {
      // Messages hold recipients' names and addresses: readable by the service's user only.
      ready ??= mkdir(dir, { recursive: true, mode: 0o700 });
      await ready;
      const info = await transporter.sendMail(await nodemailerMessage(msg));
      const name = `${Date.now()}-${randomBytes(8).toString('hex')}.eml`;
      const tmp = join(dir, `.${name}.tmp`);
      await writeFile(tmp, info.message, { flag: 'wx', mode: 0o600 });
      await rename(tmp, join(dir, name));
      return { messageId: msg.messageId };
    },
    // Writing a file takes moments: nothing to cut.
    abort() {},
    async close() {
      transporter.close();
    },
  };
}

export interface SendErrorClass {
  /** True when retrying cannot help (SMTP 5xx, a malformed envelope): mark the send failed at once. */
  permanent: boolean;
  /** Safe to store as `lastError` and show to the account: no credentials. */
  message: string;
}

interface NodemailerErrorFields {
  code?: unknown;
  command?: unknown;
  responseCode?: unknown;
  message?: unknown;
}

// Errors about our side of the connection or its configuration, never about the message itself.
const TRANSIENT_CODES = new Set([
  'EAUTH',
  'ENOAUTH',
  'EOAUTH2',
  'ETLS',
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
]);

// What a network failure means, in words for the account (the raw text names our addresses).
const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the mail server refused the connection',
  ECONNRESET: 'the mail server closed the connection',
  ETIMEDOUT: 'the mail server did not answer in time',
  ENOTFOUND: 'the mail server name could not be resolved',
  EAI_AGAIN: 'the mail server name could not be resolved',
  EHOSTUNREACH: 'the mail server could not be reached',
  ENETUNREACH: 'the mail server could not be reached',
};

function redact(text: string): string {
  return (
    text
      // host:port and bare addresses of either family: the service's own network is not the
      // account's business
      .replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, '[address]')
      .replace(/\[?\b(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}\b\]?(?::\d+)?/gi, '[address]')
      // user:password@ in any URL-like string
      .replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1***@')
      // SASL payloads, should a server echo one back
      .replace(/\b(AUTH\s+(?:PLAIN|LOGIN|XOAUTH2|CRAM-MD5))\s+\S+/gi, '$1 ***')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 500)
  );
}

/**
 * Sorts a send failure into permanent or transient. SMTP 5xx replies are permanent, 4xx replies and
 * network failures (refused, reset, timeouts, DNS) are transient. Two judgement calls: an
 * authentication or TLS failure is transient even with a 5xx reply, because it is the server's
 * configuration, not this message, that is wrong; an unknown error without an SMTP reply is transient,
 * since the retry policy bounds the attempts anyway.
 */
export function classifySendError(err: unknown): SendErrorClass {
  const fields: NodemailerErrorFields = typeof err === 'object' && err !== null ? err : {};
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  const responseCode = typeof fields.responseCode === 'number' ? fields.responseCode : undefined;
  const text = typeof fields.message === 'string' ? fields.message : String(err);
  const network = Object.keys(NETWORK_WORDS).find((c) => c === code || text.includes(c));
  const raw =
    code === 'ETLS' && fields.command === 'STARTTLS' && responseCode !== undefined
      ? `the mail server offers no STARTTLS, and the SMTP credentials are only sent over TLS (${text})`
      : responseCode === undefined && network
        ? `${NETWORK_WORDS[network]} (${network})`
        : text;
  const prefix = [code, responseCode].filter((x) => x !== undefined).join(' ');
  const message =
    redact(prefix && !raw.includes(prefix) ? `${prefix}: ${raw}` : raw) || 'mail delivery failed';

  if (code !== undefined && TRANSIENT_CODES.has(code)) return { permanent: false, message };
  if (responseCode !== undefined && responseCode >= 500 && responseCode < 600)
    return { permanent: true, message };
  if (responseCode !== undefined && responseCode >= 400 && responseCode < 500)
    return { permanent: false, message };
  // Nodemailer refuses a message it cannot build or address before talking to the server.
  if (code === 'EENVELOPE' || code === 'EMESSAGE') return { permanent: true, message };
  return { permanent: false, message };
}
