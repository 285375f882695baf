import http from 'node:http';

// A plain HTTP/1.1 client over node:http, so that the tests choose keep-alive and see every status
// and header as the server sent it.

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: <T = Record<string, unknown>>() => T;
  ms: number;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  agent?: http.Agent;
  timeoutMs?: number;
}

export function request(url: string, opts: RequestOptions = {}): Promise<Reply> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: opts.method ?? 'GET',
        agent: opts.agent ?? false,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...opts.headers },
        timeout: opts.timeoutMs ?? 60_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
            ms: Date.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer from ${url} within ${opts.timeoutMs ?? 60_000} ms`)),
    );
    req.on('error', reject);
    req.end(body);
  });
}
