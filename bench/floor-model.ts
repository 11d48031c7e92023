import http from 'node:http';
import { createParser } from 'eventsource-parser';
import { KEEP_ALIVE } from '../src/lib/keep-alive';

const agent = new http.Agent(KEEP_ALIVE);

/**
 * One request of the benchmarks' floors (chat-floor.ts, tests-floor.ts) to the fake model at
 * `OPENAI_BASE_URL`, the least a client can do: a streamed answer's text joined, as its
 * `chat.completion.chunk` events come, or an unstreamed answer's content.
 */
export function askModel(body: { stream?: boolean } & Record<string, unknown>): Promise<string> {
  const url = new URL(`${process.env.OPENAI_BASE_URL!.replace(/\/+$/, '')}/chat/completions`);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      agent,
      headers: { authorization: `Bearer ${process.env.OPENAI_API_KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      let answer = '';
      const parser = createParser({
        onEvent: (event) => {
          if (event.data.startsWith('[DONE]')) return;
          answer += JSON.parse(event.data).choices?.[0]?.delta?.content ?? '';
        },
      });
      response.setEncoding('utf8');
      response.on('data', (piece: string) => (body.stream ? parser.feed(piece) : (answer += piece)));
      response.on('end', () => resolve(body.stream ? answer : (JSON.parse(answer).choices?.[0]?.message?.content ?? '')));
      response.on('error', reject);
    });
    request.end(text);
  });
}
