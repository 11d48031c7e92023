import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  /** What to answer next; the default answers 200 `{"ok":true}`. */
  respond: (request: Received, res: ServerResponse, index: number) => void | Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP server on a loopback port, standing in for a user's webhook receiver or tool. */
export async function startReceiver(host = '127.0.0.1', port = 0): Promise<Receiver> {
  const receiver = {
    requests: [] as Received[],
    connections: 0,
    respond: ((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }) as Receiver['respond'],
  } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      receiver.requests.push(request);
      void receiver.respond(request, res, receiver.requests.length - 1);
    });
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://${host.includes(':') ? `[${host}]` : host}:${receiver.port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
