import net from 'node:net';

// One request written as raw bytes on its own TCP connection, and the answer read back as bytes:
// for input that an HTTP client library would refuse to send (bad methods, raw bytes in paths,
// conflicting headers, broken chunking). The answer is complete when its Content-Length has
// arrived or the server closes the connection.

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  raw: string;
}

export function parseAnswer(all: Buffer, noBody = false): RawAnswer | undefined {
  // Interim answers (100 Continue) come before the real one.
  let raw = all;
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw.subarray(0, 13).toString('latin1'))) {
    const interim = raw.indexOf('\r\n\r\n');
    if (interim === -1) return undefined;
    raw = raw.subarray(interim + 4);
  }
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const head = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1]);
  if (!status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const body = raw.subarray(end + 4);
  const length = noBody ? undefined : headers['content-length'];
  if (length !== undefined && body.length < Number(length)) return undefined;
  if (!noBody && length === undefined && headers['transfer-encoding'] === 'chunked') {
    if (!body.includes('\r\n0\r\n\r\n') && !body.subarray(0, 5).equals(Buffer.from('0\r\n\r\n')))
      return undefined;
  }
  return { status, headers, body: body.toString('utf8'), raw: raw.toString('latin1') };
}

export function rawRequest(
  port: number,
  request: Buffer | string,
  // keepOpen: do not half-close after writing; noBody: the answer to a HEAD has none.
  opts: { keepOpen?: boolean; noBody?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = net.connect(port, '127.0.0.1');
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      const answer = parseAnswer(Buffer.concat(chunks), opts.noBody);
      if (answer) resolve(answer);
      else
        reject(
          err ??
            new Error(
              `no complete answer: ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 300))}`,
            ),
        );
    };
    socket.on('connect', () => {
      socket.write(request);
      if (!opts.keepOpen) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (parseAnswer(Buffer.concat(chunks), opts.noBody)) finish();
    });
    socket.on('error', (err) => finish(err));
    socket.on('close', () => finish());
  });
}

export function httpRequest(
  method: string,
  target: string,
  headers: Record<string, string | string[]>,
  body?: Buffer | string,
): Buffer {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  const bytes = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  if (
    body !== undefined &&
    !Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h))
  ) {
    lines.push(`Content-Length: ${bytes.length}`);
  }
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]);
}
