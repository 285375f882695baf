import net from 'node:net';

// A TCP proxy on loopback in front of a real server (PostgreSQL in the tests), to make it fail the
// ways networks and servers fail: `hang` stops every byte in both directions while connections stay
// open (a frozen server, a partition); `refuse` resets every connection; `restore` passes again.

export interface FaultProxy {
  port: number;
  hang(): void;
  refuse(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(targetPort: number): Promise<FaultProxy> {
  let mode: 'pass' | 'hang' | 'refuse' = 'pass';
  const pairs = new Set<[net.Socket, net.Socket]>();
  const drop = (pair: [net.Socket, net.Socket]) => {
    pair[0].destroy();
    pair[1].destroy();
    pairs.delete(pair);
  };
  const server = net.createServer((client) => {
    client.on('error', () => undefined);
    if (mode === 'refuse') return void client.destroy();
    const upstream = net.connect(targetPort, '127.0.0.1');
    upstream.on('error', () => undefined);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.once('close', () => drop(pair));
    upstream.once('close', () => drop(pair));
    if (mode === 'pass') {
      client.pipe(upstream);
      upstream.pipe(client);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    hang() {
      mode = 'hang';
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    refuse() {
      mode = 'refuse';
      for (const pair of [...pairs]) drop(pair);
    },
    restore() {
      // Connections caught mid-conversation cannot resume: they are dropped; new ones pass.
      for (const pair of [...pairs]) if (mode !== 'pass') drop(pair);
      mode = 'pass';
    },
    close() {
      for (const pair of [...pairs]) drop(pair);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
