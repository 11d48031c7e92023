import type { VendorEvent } from '../../src/modules/calls/call.vendor-events';
import { ttsChain } from '../../src/modules/assistants/assistant.voice';
import { CartesiaTts } from '../../src/voice/services/cartesia.tts';
import { ElevenLabsTts } from '../../src/voice/services/elevenlabs.tts';
import { FallbackTts } from '../../src/voice/services/fallback.tts';
import type { ServiceError, TtsEvents, TtsOptions, TtsSession } from '../../src/voice/services/service';
import { startFakeCartesia, type FakeCartesia } from '../helpers/fakes/cartesia';
import { startFakeElevenLabs, type FakeElevenLabs } from '../helpers/fakes/elevenlabs';

/**
 * FallbackTts over the ElevenLabs and Cartesia fakes: an utterance that fails before its first
 * audio is spoken whole by the next vendor, which keeps the rest of the call; a 429 is tried
 * again after its Retry-After first; a failure after audio stays the utterance's.
 */

const KEY = 'tts-fallback-key';
const OPTIONS: TtsOptions = { voiceId: 'ignored', language: 'pt', speed: 1, stability: 0.5, similarity: 0.75, sampleRate: 16000 };

let eleven: FakeElevenLabs;
let cartesia: FakeCartesia;
let events: VendorEvent[];
let session: TtsSession;
beforeEach(async () => {
  [eleven, cartesia] = await Promise.all([startFakeElevenLabs(KEY), startFakeCartesia(KEY)]);
  events = [];
  session = new FallbackTts(
    [
      { service: new ElevenLabsTts({ apiKey: KEY, url: eleven.url }, { openMs: 2000, answerMs: 2000 }), voiceId: 'eleven-voice' },
      { service: new CartesiaTts({ apiKey: KEY, url: cartesia.url }), voiceId: null },
    ],
    (event) => events.push(event),
  ).open(OPTIONS);
});
afterEach(async () => {
  session.close();
  await Promise.all([eleven.close(), cartesia.close()]);
});

function listen() {
  const log: string[] = [];
  const errors: ServiceError[] = [];
  let samples = 0;
  let settle: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const events: TtsEvents = {
    audio: (pcm) => {
      samples += pcm.length;
      if (log.at(-1) !== 'audio') log.push('audio');
    },
    done: () => (log.push('done'), settle()),
    failed: (error) => (log.push('failed'), errors.push(error), settle()),
  };
  return { log, errors, settled, events, samples: () => samples };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The transcripts Cartesia was given, all contexts. */
const cartesiaText = () => cartesia.sockets.flatMap((socket) => socket.messages.map((message) => message.transcript)).join('');

it('speaks an utterance refused before its first audio with the next vendor, whole, and keeps that vendor for the rest of the call', async () => {
  eleven.refuse = true;
  const first = listen();
  const utterance = session.utterance(first.events);
  utterance.push('Olá, tudo bem?');
  utterance.push('Como posso ajudar?');
  utterance.end();
  await first.settled;
  expect(first.log).toEqual(['audio', 'done']);
  expect(cartesiaText()).toBe('Olá, tudo bem? Como posso ajudar?');
  expect(events).toEqual([
    { type: 'vendor_switched', part: 'tts', from: 'elevenlabs', to: 'cartesia', reason: 'ElevenLabs refused the stream: invalid_api_key' },
  ]);

  // The vendor that failed is not asked again.
  eleven.refuse = false;
  const second = listen();
  const next = session.utterance(second.events);
  next.push('Mais uma frase.');
  next.end();
  await second.settled;
  expect(second.log).toEqual(['audio', 'done']);
  expect(eleven.handshakes).toBe(1);
  expect(cartesiaText()).toContain('Mais uma frase.');
  expect(events).toHaveLength(1);
});

it('keeps text pushed while the switch happens', async () => {
  eleven.refuse = true;
  const heard = listen();
  const utterance = session.utterance(heard.events);
  utterance.push('Primeira frase.');
  while (events.length === 0) await sleep(10);
  utterance.push('Segunda frase.');
  utterance.end();
  await heard.settled;
  expect(heard.log).toEqual(['audio', 'done']);
  expect(cartesiaText()).toBe('Primeira frase. Segunda frase.');
});

it('does not switch after the first audio: the failure is the utterance’s', async () => {
  const heard = listen();
  const utterance = session.utterance(heard.events);
  utterance.push('Uma frase falada.');
  const socket = await eleven.socket();
  while (heard.samples() === 0) await sleep(10);
  socket.drop();
  await heard.settled;
  expect(heard.log).toEqual(['audio', 'failed']);
  expect(heard.errors[0].kind).toBe('dropped');
  expect(cartesia.sockets.flatMap((s) => s.messages)).toEqual([]);
  expect(events).toEqual([]);
});

it('tries a 429 again on the same vendor after its Retry-After', async () => {
  eleven.nextHandshakes = [{ status: 429, retryAfter: '0.4' }];
  const heard = listen();
  const started = Date.now();
  const utterance = session.utterance(heard.events);
  utterance.push('Tente de novo.');
  utterance.end();
  await eleven.socket();
  const waited = Date.now() - started;
  await heard.settled;
  expect(heard.log).toEqual(['audio', 'done']);
  expect(eleven.handshakes).toBe(2);
  expect(waited).toBeGreaterThanOrEqual(380);
  expect(events).toEqual([{ type: 'vendor_retried', part: 'tts', vendor: 'elevenlabs', reason: 'ElevenLabs refused the stream: HTTP 429' }]);
  expect(cartesiaText()).toBe('');
});

it('waits at most 1 s for a Retry-After, then switches when the retry fails too', async () => {
  eleven.nextHandshakes = [
    { status: 429, retryAfter: '30' },
    { status: 429, retryAfter: '30' },
  ];
  const heard = listen();
  const started = Date.now();
  const utterance = session.utterance(heard.events);
  utterance.push('Outra vez.');
  utterance.end();
  await heard.settled;
  const took = Date.now() - started;
  expect(heard.log).toEqual(['audio', 'done']);
  expect(took).toBeGreaterThanOrEqual(950);
  expect(took).toBeLessThan(5000);
  expect(events.map((event) => event.type)).toEqual(['vendor_retried', 'vendor_switched']);
  expect(cartesiaText()).toBe('Outra vez.');
});

it('stops everything when cancelled during a retry or a switch', async () => {
  eleven.nextHandshakes = [{ status: 429, retryAfter: '0.5' }];
  const retrying = listen();
  const first = session.utterance(retrying.events);
  first.push('Cancelada na espera.');
  first.end();
  while (events.length === 0) await sleep(10);
  first.cancel();
  await sleep(800);
  expect(eleven.handshakes).toBe(1);
  expect(retrying.log).toEqual([]);

  // Cancelled while Cartesia's handshake is held: nothing comes once it opens.
  eleven.refuse = true;
  cartesia.holdHandshakes = true;
  const switching = listen();
  const second = session.utterance(switching.events);
  second.push('Cancelada na troca.');
  second.end();
  while (events.length < 2) await sleep(10);
  second.cancel();
  cartesia.holdHandshakes = false;
  await sleep(500);
  expect(switching.log).toEqual([]);
  expect(events.map((event) => event.type)).toEqual(['vendor_retried', 'vendor_switched']);
});

it('fails the utterance when every vendor of the chain failed before its audio', async () => {
  eleven.refuse = true;
  cartesia.refuse = true;
  const heard = listen();
  const utterance = session.utterance(heard.events);
  utterance.push('Ninguém fala.');
  utterance.end();
  await heard.settled;
  expect(heard.log).toEqual(['failed']);
  expect(heard.errors[0].message).toMatch(/Cartesia/);
});

describe('the chain', () => {
  it('is the call’s voice, the fallback voice, then every other configured vendor with its default voice', () => {
    const configured = ['elevenlabs', 'cartesia', 'openai'];
    expect(ttsChain(configured, { vendor: 'elevenlabs', voiceId: 'v1' }, { vendor: 'openai', voiceId: 'nova' })).toEqual([
      { vendor: 'elevenlabs', voiceId: 'v1' },
      { vendor: 'openai', voiceId: 'nova' },
      { vendor: 'cartesia', voiceId: null },
    ]);
    expect(ttsChain(configured, { vendor: 'cartesia', voiceId: null }, null)).toEqual([
      { vendor: 'cartesia', voiceId: null },
      { vendor: 'elevenlabs', voiceId: null },
      { vendor: 'openai', voiceId: null },
    ]);
    // A fallback voice of a vendor not configured here, or of the failing vendor, is left out.
    expect(ttsChain(['elevenlabs'], { vendor: 'elevenlabs', voiceId: 'v1' }, { vendor: 'cartesia', voiceId: 'c' })).toEqual([{ vendor: 'elevenlabs', voiceId: 'v1' }]);
    expect(ttsChain(['elevenlabs', 'openai'], { vendor: 'elevenlabs', voiceId: 'v1' }, { vendor: 'elevenlabs', voiceId: 'v2' })).toEqual([
      { vendor: 'elevenlabs', voiceId: 'v1' },
      { vendor: 'openai', voiceId: null },
    ]);
  });
});
