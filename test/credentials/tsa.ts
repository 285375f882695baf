import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

// A local RFC 3161 time-stamp authority for tests: OpenSSL's `openssl ts -reply` behind a small
// HTTP handler on a loopback port, with its own self-signed TSA certificate. Each request runs one
// openssl process; `stopped` makes it answer 503 (a TSA that is down).

export interface LocalTsa {
  url: string;
  /** The TSA certificate (PEM file), for `openssl ts -verify -CAfile`. */
  certificateFile: string;
  dir: string;
  requests: number;
  stopped: boolean;
  close(): Promise<void>;
}

const CONFIG = `[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = .
serial = ./serial
crypto_device = builtin
signer_cert = ./tsa.pem
certs = ./tsa.pem
signer_key = ./tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256
accuracy = secs:1
ordering = no
tsa_name = no
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;

export async function startLocalTsa(): Promise<LocalTsa> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-tsa-'));
  writeFileSync(path.join(dir, 'tsa.cnf'), CONFIG);
  writeFileSync(path.join(dir, 'serial'), '01\n');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'tsa.key',
      '-out',
      'tsa.pem',
      '-days',
      '3650',
      '-subj',
      '/CN=certsvc test TSA',
      '-addext',
      'extendedKeyUsage=critical,timeStamping',
      '-addext',
      'keyUsage=critical,digitalSignature',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  let n = 0;
  // One openssl at a time: they share the serial number file.
  let queue: Promise<void> = Promise.resolve();
  const tsa: LocalTsa = {
    url: '',
    certificateFile: path.join(dir, 'tsa.pem'),
    dir,
    requests: 0,
    stopped: false,
    close: () =>
      new Promise((resolve) =>
        server.close(() => (rmSync(dir, { recursive: true, force: true }), resolve())),
      ),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      tsa.requests++;
      if (tsa.stopped || req.headers['content-type'] !== 'application/timestamp-query') {
        res.writeHead(503).end();
        return;
      }
      const id = ++n;
      const query = path.join(dir, `q${id}.tsq`);
      const reply = path.join(dir, `r${id}.tsr`);
      writeFileSync(query, Buffer.concat(chunks));
      queue = queue.then(
        () =>
          new Promise<void>((done) => {
            execFile(
              'openssl',
              ['ts', '-reply', '-queryfile', query, '-config', 'tsa.cnf', '-out', reply],
              { cwd: dir },
              (err) => {
                if (err) res.writeHead(500).end();
                else
                  res
                    .writeHead(200, { 'content-type': 'application/timestamp-reply' })
                    .end(readFileSync(reply));
                rmSync(query, { force: true });
                rmSync(reply, { force: true });
                done();
              },
            );
          }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tsa.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
  return tsa;
}
