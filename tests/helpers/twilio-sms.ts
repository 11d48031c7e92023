import { randomBytes } from 'node:crypto';
import { json, startReceiver, type Receiver } from './receiver';

/**
 * A local stand-in for Twilio's Messages API, speaking its wire format: form-encoded POSTs
 * to `/2010-04-01/Accounts/{Sid}/Messages.json` answered with the message resource (201) or
 * an error `{code, message, more_info, status}`, and the same resources read back with GET
 * (one by sid, or a page `{messages: [...]}` filtered by To and From). `behaviour` decides
 * how each POST goes: whether the message is kept, and how (or whether) the answer arrives.
 */
export type PostBehaviour =
  | 'accept'
  /** Keeps the message, sends the 201's headers and part of its body, then nothing more. */
  | 'accept-then-stall'
  /** Keeps the message, and answers only after `delayMs`. */
  | 'accept-late'
  /** Keeps the message, then cuts the connection in the middle of the body. */
  | 'accept-then-cut'
  /** Keeps the message and answers 503. */
  | 'accept-then-503'
  /** Keeps nothing and answers 500. */
  | 'refuse-500'
  /** Keeps nothing and answers 400 with error 21211. */
  | 'refuse-400';

export interface TwilioMessage {
  sid: string;
  from: string;
  to: string;
  body: string;
  status: string;
  date_created: string;
  error_code: number | null;
  error_message: string | null;
}

export interface FakeTwilio {
  url: string;
  receiver: Receiver;
  messages: TwilioMessage[];
  /** How the POST of this form goes; `index` counts the POSTs. */
  behaviour: (form: URLSearchParams, index: number) => PostBehaviour;
  delayMs: number;
  close(): Promise<void>;
}

const MESSAGES = /^\/2010-04-01\/Accounts\/[^/]+\/Messages(?:\/([^/.]+))?\.json(?:\?(.*))?$/;

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const receiver = await startReceiver();
  const fake: FakeTwilio = { url: receiver.url, receiver, messages: [], behaviour: () => 'accept', delayMs: 1000, close: () => receiver.close() };
  let posts = 0;

  receiver.respond = (request, res) => {
    const match = MESSAGES.exec(request.url);
    if (!match) return json(res, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    if (request.method === 'GET') {
      if (match[1]) {
        const message = fake.messages.find((m) => m.sid === match[1]);
        return message ? json(res, 200, message) : json(res, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
      }
      const query = new URLSearchParams(match[2] ?? '');
      const messages = fake.messages.filter((m) => (!query.get('To') || m.to === query.get('To')) && (!query.get('From') || m.from === query.get('From')));
      return json(res, 200, { messages: [...messages].reverse(), page: 0, page_size: Number(query.get('PageSize') ?? 50) });
    }
    const form = new URLSearchParams(request.body);
    const behaviour = fake.behaviour(form, posts++);
    if (behaviour === 'refuse-400') {
      return json(res, 400, { code: 21211, message: `The 'To' number ${form.get('To')} is not a valid phone number.`, more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 });
    }
    if (behaviour === 'refuse-500') return json(res, 500, { code: 20500, message: 'Internal Server Error', status: 500 });
    const message: TwilioMessage = {
      sid: `SM${randomBytes(16).toString('hex')}`,
      from: form.get('From') ?? '',
      to: form.get('To') ?? '',
      body: form.get('Body') ?? '',
      status: 'queued',
      date_created: new Date().toUTCString().replace('GMT', '+0000'),
      error_code: null,
      error_message: null,
    };
    fake.messages.push(message);
    const body = JSON.stringify(message);
    switch (behaviour) {
      case 'accept':
        return json(res, 201, message);
      case 'accept-late':
        setTimeout(() => json(res, 201, message), fake.delayMs);
        return;
      case 'accept-then-503':
        return json(res, 503, { code: 20503, message: 'Service Unavailable', status: 503 });
      case 'accept-then-stall':
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.write(body.slice(0, 10));
        return;
      case 'accept-then-cut':
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.write(body.slice(0, 10), () => res.destroy());
        return;
    }
  };
  return fake;
}
