import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { askModel } from './floor-model';

/**
 * The floor of the assistant-tests benchmark (bench/tests.ts): the least a process can do for
 * the same simulations, a plain node:http process with no job queue, no rules, no database.
 * `POST /run {simulations, turns, round}` runs the simulations all at once, each as vozgate's
 * does against the same fake model: for each turn the caller's streamed request, then the
 * assistant's, each with the conversation so far, then the judge's unstreamed one; it answers
 * once all are over. The fake sees the same requests, one after the other in each
 * simulation, so the benchmark measures this floor's added time per turn as it measures
 * vozgate's: what the harness, the fake's timers, the loopback sockets and this machine cost
 * a turn when its simulations come back together. vozgate's own cost is its time over this one.
 */
type Message = { role: string; content: string };

/** One request to the fake model: the streamed answer's text, or the unstreamed answer's. */
const ask = (model: string, messages: Message[], stream: boolean) =>
  askModel({ model, messages, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) });

/** One simulation: the caller (who carries the simulation's marker in its persona) and the assistant in turn, then the judge. */
async function simulate(marker: string, turns: number): Promise<void> {
  const persona = `${marker}: você quer saber quando chega o seu pedido.`;
  const transcript: Message[] = [];
  for (let turn = 0; turn < turns; turn++) {
    // The caller sees the conversation the other way round: the assistant's lines are its user's.
    const callerLine = await ask(
      'bench-caller',
      [{ role: 'system', content: persona }, ...transcript.map((m) => ({ role: m.role === 'user' ? 'assistant' : 'user', content: m.content }))],
      true,
    );
    transcript.push({ role: 'user', content: callerLine });
    const answer = await ask('bench-assistant', [{ role: 'system', content: 'Você confirma pedidos da Loja Centro. Seja breve.' }, ...transcript], true);
    transcript.push({ role: 'assistant', content: answer });
  }
  const conversation = transcript.map((m) => `${m.role === 'user' ? 'Cliente' : 'Assistente'}: ${m.content}`).join('\n');
  await ask('bench-judge', [{ role: 'system', content: 'Você julga a conversa.' }, { role: 'user', content: `Critérios:\n1. Diz quando o pedido chega\n\n${conversation}` }], false);
}

const server = http.createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (piece: string) => (raw += piece));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/run') return void res.writeHead(404).end();
    const { simulations, turns, round } = JSON.parse(raw) as { simulations: number; turns: number; round: number };
    void Promise.all(Array.from({ length: simulations }, (_, s) => simulate(`SIM-${s}-R${round}`, turns))).then(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
});

server.listen(0, '127.0.0.1', () => process.stdout.write(`tests floor: http://127.0.0.1:${(server.address() as AddressInfo).port}/run\n`));
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
