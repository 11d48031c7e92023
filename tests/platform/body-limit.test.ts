import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { UNREAD_BODY_DRAIN_BYTES } from '../../src/http';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * A body over MAX_BODY_BYTES, written by a client that sends all of it before it reads the
 * answer (Node's own http client, streaming with backpressure): it reads its 413, whether the
 * body declared its length or came in chunks. The service reads and drops at most
 * UNREAD_BODY_DRAIN_BYTES of a refused body before it closes the connection.
 */
let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
});

afterAll(async () => {
  await app?.close();
});

interface Answer {
  status?: number;
  body?: any;
  error?: string;
}

/**
 * POSTs `bytes` in 64 KB writes, waiting for each to drain, as Node's own client streams a
 * body. Answers the response once it has been read whole (then stops sending, as a client does
 * on an early answer), or the error that came before it (a reset, EPIPE).
 */
function send(path: string, bytes: number, declareLength: boolean): Promise<Answer> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${me.token}`, 'content-type': 'application/json' };
    if (declareLength) headers['content-length'] = bytes;
    let settled = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      resolve(answer);
      req.destroy();
    };
    const req = http.request(`${app.url}${path}`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => settle({ status: res.statusCode, body: JSON.parse(text) }));
    });
    req.on('error', (error) => settle({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const write = () => {
      while (sent < bytes && !settled) {
        const piece = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', write);
      }
      if (!settled) req.end();
    };
    write();
  });
}

const codeOf = (path: string, answer: Answer) => (path === '/graphql' ? answer.body?.errors?.[0]?.extensions?.code : answer.body?.code);

it.each([true, false])('a 5 MB body (length declared: %s) gets its 413, read by a client that writes it all first', async (declareLength) => {
  for (const path of ['/api/user/lead', '/graphql']) {
    const answer = await send(path, 5 * 1024 * 1024, declareLength);
    expect({ path, status: answer.status, code: codeOf(path, answer), error: answer.error }).toEqual({ path, status: 413, code: 'PAYLOAD_TOO_LARGE', error: undefined });
  }
  // The connection pool and the server are fine afterwards.
  expect((await app.request('GET', '/api/user/leads', { token: me.token })).status).toBe(200);
});

/**
 * The client of the test below, in a process of its own (a client in the server's process reads
 * the answer before the server's close can reach it): `tries` POSTs of a 5 MB body, each on a
 * connection of its own (`Connection: close`, as many clients send), written whole, streamed in
 * 64 KB writes with a length, or chunked. Prints each outcome: its status and code, or the error.
 */
const CLIENT = `
const http = require('node:http');
const [url, token, kinds] = process.argv.slice(1);
const bytes = 5 * 1024 * 1024;
function send(kind) {
  return new Promise((resolve) => {
    const headers = { authorization: 'Bearer ' + token, 'content-type': 'application/json' };
    if (kind !== 'chunked') headers['content-length'] = bytes;
    let settled = false;
    const settle = (answer) => { if (!settled) { settled = true; resolve(kind + ': ' + answer); req.destroy(); } };
    const req = http.request(url, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => settle(res.statusCode + ' ' + JSON.parse(text).code));
    });
    req.on('error', (error) => settle(error.code || error.message));
    if (kind === 'whole') return void req.end(Buffer.alloc(bytes, 'a'));
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const write = () => {
      while (sent < bytes && !settled) {
        const piece = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', write);
      }
      if (!settled) req.end();
    };
    write();
  });
}
(async () => {
  const answers = [];
  for (const kind of kinds.split(',')) answers.push(await send(kind));
  process.stdout.write(JSON.stringify(answers));
})();
`;

it('under CPU load, every one of 30 tries reads its 413: whole bodies, streamed with a length, chunked', async () => {
  // Processes spinning on the other cores, as on a busy machine: the server answers while the
  // client is still writing, and a close before the body is read loses the answer to a reset.
  const spinners: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    const kinds = [...Array(2).fill('whole'), ...Array(19).fill('streamed'), ...Array(9).fill('chunked')];
    const client = spawn(process.execPath, ['-e', CLIENT, `${app.url}/api/user/lead`, me.token, kinds.join(',')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    client.stdout!.on('data', (chunk) => (out += chunk));
    await new Promise((resolve) => client.once('exit', resolve));
    const answers: string[] = JSON.parse(out);
    expect(answers).toHaveLength(30);
    expect(answers.filter((answer) => !answer.endsWith('413 PAYLOAD_TOO_LARGE'))).toEqual([]);
  } finally {
    for (const spinner of spinners) spinner.kill('SIGKILL');
  }
}, 120_000);

it.each([true, false])('stops reading a body answered early (a token: %s) past the drain bound: the connection is closed', async (withToken) => {
  // A raw client that ignores the answer (a 413, or a 401) and writes on: the server reads at most the bound.
  const total = 4 * UNREAD_BODY_DRAIN_BYTES;
  const { port } = new URL(app.url);
  const written = await new Promise<number>((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let sent = 0;
    socket.on('error', () => {});
    socket.on('close', () => resolve(sent));
    socket.write(`POST /api/user/lead HTTP/1.1\r\nhost: localhost\r\n${withToken ? `authorization: Bearer ${me.token}\r\n` : ''}content-type: application/json\r\ncontent-length: ${total}\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const write = () => {
      while (sent < total && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', write);
      }
      socket.end();
    };
    write();
  });
  expect(written).toBeLessThan(total);
  expect(written).toBeGreaterThan(UNREAD_BODY_DRAIN_BYTES / 2);
});
