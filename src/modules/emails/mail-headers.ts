/**
 * Header text written by us, not by nodemailer. Nodemailer puts a printable ASCII display name in
 * quotes as it is; but `"=?utf-8?b?...?="` is decoded by mail clients anyway (against RFC 2047, which
 * forbids encoded-words in quotes), so a recipient named `=?utf-8?b?RXZlIDxldmlsQHgudGVzdD4=?=` was
 * shown as "Eve <evil@x.test>". Any text that is not plain words is therefore sent as RFC 2047
 * encoded-words (UTF-8, base64), which carry every character as data: the reader sees exactly the
 * name, and the header holds exactly one address.
 */

import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { MailAddress, MailMessage } from './mail-message.js';

// Plain words: letters, digits and a few marks, single spaces, and never the start of an
// encoded-word. Everything else (quotes, brackets, commas, non-ASCII, `=?`) is encoded.
const PLAIN_PHRASE = /^[A-Za-z0-9!#$%&'*+\-/^_`{|}~]+( [A-Za-z0-9!#$%&'*+\-/^_`{|}~]+)*$/;
// Unstructured text (Subject) may hold any printable ASCII as it is, except an encoded-word's start.
const PLAIN_TEXT = /^[\x20-\x7e]*$/;

// 42 bytes are 56 base64 characters, a 68-character encoded-word ("=?UTF-8?B?" + 56 + "?="): within
// the 75 of RFC 2047, and "Subject: " (the longest header name here) plus one word is 77, within 78.
const WORD_BYTES = 42;

/** `text` as encoded-words, one per line after the first (folded with CRLF and a space). */
export function encodedWords(text: string): string {
  const words: string[] = [];
  let chunk = '';
  for (const char of text) {
    // A character's bytes never straddle two words: each word must decode on its own.
    if (Buffer.byteLength(chunk + char) > WORD_BYTES) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  if (chunk || words.length === 0) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join('\r\n ');
}

function needsEncoding(text: string, plain: RegExp): boolean {
  return !plain.test(text) || text.includes('=?') || text.length > 60;
}

/** The value of an unstructured header (Subject) that shows exactly `text`. */
export function unstructuredHeader(text: string): string {
  return needsEncoding(text, PLAIN_TEXT) ? encodedWords(text) : text;
}

/** The value of an address header (From, To): the one address, with its display name exactly. */
export function addressHeader({ name, address }: MailAddress): string {
  if (!name) return address;
  const phrase = needsEncoding(name, PLAIN_PHRASE) ? encodedWords(name) : name;
  // The address goes on a line of its own when the last word is long (lines of at most 78).
  const last = phrase.slice(phrase.lastIndexOf('\n') + 1);
  return `${phrase}${last.length + address.length + 3 > 70 ? '\r\n ' : ' '}<${address}>`;
}

/**
 * The whole message as bytes, for nodemailer's `raw`: nodemailer builds the body parts and the
 * Subject (prepared by us); From and To it would re-quote, so they are written here.
 */
export async function composeMessage(msg: MailMessage): Promise<Buffer> {
  const rest = await new MailComposer({
    messageId: msg.messageId,
    headers: { Subject: { prepared: true, value: unstructuredHeader(msg.subject) } },
    text: msg.text,
    html: msg.html,
    attachments: msg.attachments,
  })
    .compile()
    .build();
  const addresses = `From: ${addressHeader(msg.from)}\r\nTo: ${addressHeader(msg.to)}\r\n`;
  return Buffer.concat([Buffer.from(addresses, 'ascii'), rest]);
}

/** What nodemailer sends: the composed bytes, and the envelope (the one recipient) beside them. */
export async function nodemailerMessage(msg: MailMessage) {
  return {
    envelope: { from: msg.from.address, to: [msg.to.address] },
    raw: await composeMessage(msg),
  };
}
