import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/platform/net.js';
import { REPO_ROOT } from '../cli/run-cli.js';
import { portOpen, waitFor } from './backing-services.js';

const run = promisify(execFile);

// Debian's nginx with the site configuration that docs/deploy.md ships (docs/deploy/nginx.conf),
// changed only where a test must: the upstream ports, the listen port and the server name.

export interface Nginx {
  url: string;
  stop(): Promise<void>;
}

export function siteConfig(listenPort: number, upstreamPorts: number[]): string {
  const shipped = readFileSync(path.join(REPO_ROOT, 'docs/deploy/nginx.conf'), 'utf8');
  const servers = shipped.match(/^\s*server 127\.0\.0\.1:\d+.*$/gm) ?? [];
  if (servers.length !== upstreamPorts.length)
    throw new Error('docs/deploy/nginx.conf: expected three upstream servers');
  let site = shipped.replace(/listen 80;/, `listen 127.0.0.1:${listenPort};`);
  servers.forEach((line, i) => {
    site = site.replace(line, line.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${upstreamPorts[i]}`));
  });
  return site;
}

export async function startNginx(dir: string, upstreamPorts: number[]): Promise<Nginx> {
  await mkdir(dir, { recursive: true });
  // nginx's workers run as an unprivileged user: they must reach the temporary folders.
  await chmod(dir, 0o755);
  const port = await freePort();
  await writeFile(path.join(dir, 'certsvc.conf'), siteConfig(port, upstreamPorts));
  // The main context a Debian install has, minus what needs root-owned paths.
  await writeFile(
    path.join(dir, 'nginx.conf'),
    [
      'worker_processes 1;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      'events { worker_connections 1024; }',
      'http {',
      `  access_log off;`,
      `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;`,
      `  fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
      `  include ${dir}/certsvc.conf;`,
      '}',
    ].join('\n'),
  );
  await run('/usr/sbin/nginx', ['-t', '-q', '-c', path.join(dir, 'nginx.conf')]);
  const child: ChildProcess = spawn(
    '/usr/sbin/nginx',
    ['-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'],
    {
      stdio: 'ignore',
    },
  );
  await waitFor('nginx to listen', () => portOpen(port));
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGQUIT');
      await exited;
    },
  };
}
