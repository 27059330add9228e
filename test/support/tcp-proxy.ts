import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of a real server, to cut it off for real: `hang()`
 * keeps every connection open and passes nothing (a partition), `refuse()` closes them
 * all and refuses new ones, `restore()` forwards again.
 */
export interface TcpProxy {
  port: number;
  hang(): void;
  refuse(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'forward' | 'hang' | 'refuse' = 'forward';
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    if (mode === 'refuse') return client.destroy();
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (mode === 'forward') to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    hang: () => void (mode = 'hang'),
    refuse: () => {
      mode = 'refuse';
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
    },
    restore: () => void (mode = 'forward'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
