import net from 'node:net';

// A TCP proxy on loopback in front of a real server (PostgreSQL in the tests), to make it fail the
// ways networks and servers fail: `hang` stops every byte in both directions while connections stay
// open (a frozen server, a partition); `refuse` resets every connection; `restore` passes again.
// `freezeAfter` lets one statement through and then freezes: the server does the work (a COMMIT
// commits) but its answer never comes back, the moment at which a client cannot know the outcome.

export interface FaultProxy {
  port: number;
  hang(): void;
  refuse(): void;
  restore(): void;
  /**
   * The next client message containing `text` (e.g. 'COMMIT') is passed on, then that connection
   * (or, with `everything`, every connection, as `hang`) passes nothing more.
   */
  freezeAfter(text: string, scope: 'connection' | 'everything'): void;
  close(): Promise<void>;
}

type Pair = { client: net.Socket; upstream: net.Socket; frozen: boolean };

export async function startFaultProxy(targetPort: number): Promise<FaultProxy> {
  let mode: 'pass' | 'hang' | 'refuse' = 'pass';
  let trigger: { text: Buffer; scope: 'connection' | 'everything' } | undefined;
  const pairs = new Set<Pair>();
  const drop = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream.destroy();
    pairs.delete(pair);
  };
  const hangAll = () => {
    mode = 'hang';
    for (const pair of pairs) pair.frozen = true;
  };
  const server = net.createServer((client) => {
    client.on('error', () => undefined);
    if (mode === 'refuse') return void client.destroy();
    const upstream = net.connect(targetPort, '127.0.0.1');
    upstream.on('error', () => undefined);
    const pair: Pair = { client, upstream, frozen: mode === 'hang' };
    pairs.add(pair);
    client.once('close', () => drop(pair));
    upstream.once('close', () => drop(pair));
    // Bytes are forwarded by hand (not piped), so that a chunk can be looked at; a frozen
    // connection drops what it receives, as a stopped server never answers it.
    client.on('data', (chunk: Buffer) => {
      if (pair.frozen) return;
      upstream.write(chunk);
      if (trigger && chunk.includes(trigger.text)) {
        const { scope } = trigger;
        trigger = undefined;
        if (scope === 'everything') hangAll();
        else pair.frozen = true;
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!pair.frozen) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    hang: hangAll,
    refuse() {
      mode = 'refuse';
      for (const pair of [...pairs]) drop(pair);
    },
    restore() {
      // Connections caught mid-conversation cannot resume: they are dropped; new ones pass.
      for (const pair of [...pairs]) if (pair.frozen || mode !== 'pass') drop(pair);
      mode = 'pass';
      trigger = undefined;
    },
    freezeAfter(text, scope) {
      trigger = { text: Buffer.from(text), scope };
    },
    close() {
      for (const pair of [...pairs]) drop(pair);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
