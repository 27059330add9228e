/**
 * An HTTP load balancer in front of replicas: each request is sent on to the origin that
 * `route` names for it (by its number, from 0), which may be a replica still starting,
 * and the replica's answer is sent back as it came.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

export interface Balancer {
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startBalancer(route: (n: number) => string | Promise<string>): Promise<Balancer> {
  let count = 0;
  const server = createServer((req, res) => {
    const n = count++;
    void (async () => {
      const body = await bodyOf(req);
      const origin = await route(n);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          ([name]) => name !== 'host' && name !== 'connection' && name !== 'content-length',
        ),
      );
      const answer = await request(`${origin}${req.url ?? '/'}`, { method: req.method as 'POST', headers, body });
      res.writeHead(
        answer.statusCode,
        Object.fromEntries(
          Object.entries(answer.headers).filter(([name]) => name !== 'connection' && name !== 'transfer-encoding'),
        ),
      );
      res.end(Buffer.from(await answer.body.arrayBuffer()));
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
