import { randomBytes } from 'node:crypto';
import { timeStampRequest, timeStampToken, type TimeStamper } from './cms.js';

// An RFC 3161 client (HTTP transport, RFC 3161 section 3.4): posts a TimeStampReq, checks the
// answer (granted, the digest and nonce it was asked for) and returns the token.

export class TimeStampError extends Error {}

export function createTimeStamper(url: string, timeoutMs: number): TimeStamper {
  return async (digest) => {
    const nonce = randomBytes(8);
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/timestamp-query', Accept: 'application/timestamp-reply' },
        body: new Uint8Array(timeStampRequest(digest, nonce)),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new TimeStampError(`the time-stamp authority did not answer: ${(err as Error).message}`);
    }
    if (!response.ok) throw new TimeStampError(`the time-stamp authority answered HTTP ${response.status}`);
    const body = Buffer.from(await response.arrayBuffer());
    try {
      return timeStampToken(body, digest, nonce);
    } catch (err) {
      throw new TimeStampError((err as Error).message);
    }
  };
}
