/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { cspViolations, launchChromium, runInBrowser } from '../helpers/chromium';
import { startTestApp, type TestAccount, type TestApp, NO_VENDORS } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startFakeDeepgram, type FakeDeepgram } from '../helpers/fakes/deepgram';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';

/**
 * The /talk page in a real browser (Debian's chromium, headless) with a fake microphone that
 * says a real sentence (tests/fixtures/speech-pt-br-16k.wav, by espeak-ng), on a device whose
 * audio runs at 48 kHz or 44.1 kHz (as Firefox behaves: a context asked for another rate cannot
 * take the microphone), the page resampling both ways to the socket's 16 kHz: the page lists the
 * account's assistants, starts a web call, plays the assistant's greeting, sends the caller's
 * sentence to the (fake) STT, shows the reply, and hangs up. Every request to another host is
 * refused: the page and its scripts come from this server. Needs `apt-get install chromium`
 * (CI does it); without it the test is skipped, except under CI=true, where it fails.
 */
const DEEPGRAM_KEY = 'dg-test-key-talk-0123456789';
const OPENAI_KEY = 'sk-test-talk-page-key';

let app: TestApp;
let deepgram: FakeDeepgram;
let openai: FakeOpenAi;
let me: TestAccount;
const browsers: Browser[] = [];

beforeAll(async () => {
  deepgram = await startFakeDeepgram(DEEPGRAM_KEY);
  openai = await startFakeOpenAi(OPENAI_KEY);
  app = await startTestApp(
    {
      voice: {
        openai: null,
        pipelineEngineUrl: null,
        pipeline: { ...NO_VENDORS, deepgram: { apiKey: DEEPGRAM_KEY, url: deepgram.url }, openai: { apiKey: OPENAI_KEY, url: openai.url } },
      },
    },
    { workers: true },
  );
  me = await app.account({ balance: '20' });
});
afterAll(async () => {
  await Promise.all(browsers.map((each) => each.close()));
  await app?.close();
  await Promise.all([deepgram?.close(), openai?.close()]);
});

function sentencePcm(): Buffer {
  const wav = readFileSync(path.join(__dirname, '..', 'fixtures', 'speech-pt-br-16k.wav'));
  return wav.subarray(44, 44 + ((wav.length - 44) & ~1));
}

/** Seconds from the first to the end of the last 20 ms frame loud as speech (the fake Deepgram's -38 dBFS). */
function speechSpan(pcm: Int16Array, rate: number): number {
  const frame = rate / 50;
  const loud: number[] = [];
  for (let at = 0; at + frame <= pcm.length; at += frame) {
    let energy = 0;
    for (let i = at; i < at + frame; i++) energy += pcm[i] * pcm[i];
    if (Math.sqrt(energy / frame) >= 400) loud.push(at);
  }
  return loud.length ? (loud.at(-1)! + frame - loud[0]) / rate : 0;
}

/**
 * A device whose audio runs at `rate`: an AudioContext asked for no rate gets it, and one asked
 * for another cannot take the microphone, as Firefox refuses (Chromium would resample).
 */
async function deviceAt(context: BrowserContext, rate: number): Promise<void> {
  await context.addInitScript((deviceRate: number) => {
    const Native = (globalThis as any).AudioContext;
    (globalThis as any).AudioContext = class extends Native {
      constructor(options: Record<string, unknown> = {}) {
        super({ ...options, sampleRate: options.sampleRate ?? deviceRate });
      }
      createMediaStreamSource(stream: unknown) {
        if ((this as any).sampleRate !== deviceRate) {
          throw new DOMException('Connecting AudioNodes from AudioContexts with different sample-rate is currently not supported.', 'NotSupportedError');
        }
        return super.createMediaStreamSource(stream);
      }
    };
  }, rate);
}

/** The microphone's audio: silence while the greeting plays, the sentence once, then silence. */
function microphoneWav(): string {
  const speech = sentencePcm();
  const silence = (seconds: number) => Buffer.alloc(seconds * 16_000 * 2);
  const data = Buffer.concat([silence(4), speech, silence(20)]);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'vozgate-talk-')), 'microphone.wav');
  writeFileSync(file, Buffer.concat([header, data]));
  return file;
}

runInBrowser.each([48_000, 44_100])('talks to an assistant from /talk with the microphone of a %i Hz device: the greeting plays, the caller is heard at 16 kHz, the reply shows, hang-up completes the call', async (rate) => {
  const assistant = await app.outboundAssistant(me, {
    assistant_name: 'Ana da loja',
    system_prompt: 'Você atende clientes da loja.',
    initial_message: 'Olá, aqui é a Ana.',
    who_speaks_first: 'AI assistant',
    record_call: false,
    noise_cancellation: false,
    allow_interruptions: false,
  });
  const browser = await launchChromium([
    '--autoplay-policy=no-user-gesture-required',
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${microphoneWav()}%noloop`,
  ]);
  browsers.push(browser);
  const context = await browser.newContext();
  await deviceAt(context, rate);
  const page = await context.newPage();
  const refused: string[] = [];
  const origin = new URL(app.url).origin;
  await page.route('**/*', (route) => {
    if (route.request().url().startsWith(origin)) return route.continue();
    refused.push(route.request().url());
    return route.abort();
  });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // The page's policy (src/web/page-headers.ts) refuses nothing it does: its worklet, its socket.
  const violations = await cspViolations(page);

  await page.goto(`${app.url}/talk`);
  await page.getByLabel('Token').fill(me.token);
  await page.getByRole('button', { name: 'Connect' }).click();
  const picker = page.getByLabel('Assistant');
  await until('the assistants listed', async () => picker.locator('option').allTextContents(), (names) => names.some((n) => n.startsWith('Ana da loja')));
  await picker.selectOption(String(assistant));

  deepgram.transcripts.push('Quero saber do meu pedido');
  openai.chat.push({ text: 'Claro, vou verificar agora.' });
  await page.getByRole('button', { name: 'Start call' }).click();
  const transcript = page.getByRole('region', { name: 'Transcript' });

  // The greeting is shown and played: the page's audio output received samples that are not silence.
  await transcript.getByText('Assistant: Olá, aqui é a Ana.').waitFor({ timeout: 20_000 });
  const played = await until('the greeting played', () => page.evaluate(() => (globalThis as any).vozgateCall.stats), (stats) => stats.loud > 1600, 15_000);
  expect(played.played).toBeGreaterThan(played.loud);

  // The fake microphone's sentence reaches the STT (it answers only speech it hears), and the reply shows.
  await transcript.getByText('You: Quero saber do meu pedido').waitFor({ timeout: 30_000 });
  await transcript.getByText('Assistant: Claro, vou verificar agora.').waitFor({ timeout: 20_000 });
  // The answer as recorded (final, with its latency), once it has played.
  await transcript.locator('p.assistant[data-latency]').waitFor({ timeout: 20_000 });
  const [{ id: callId }] = await app.sql(`select id from calls where account_id = $1 and type = 'web' order by id desc limit 1`, [me.accountId]);
  // The page ran at the device's rate and sent the sentence at 16 kHz: the STT heard it last as long as it is.
  expect(await page.evaluate(() => (globalThis as any).vozgateCall.context.sampleRate)).toBe(rate);
  const heard = deepgram.sessions.at(-1)!;
  const spoken = speechSpan(new Int16Array(Buffer.from(sentencePcm()).buffer), 16_000);
  expect(Math.abs(speechSpan(heard.pcm, heard.rate) - spoken)).toBeLessThan(0.2);
  mkdirSync('test-results', { recursive: true });
  await page.screenshot({ path: path.join('test-results', `talk-mid-call-${rate}.png`), fullPage: true });

  // Hang up: the call is completed, and the page shows how it ended, what it cost and each answer's latency.
  await page.getByRole('button', { name: 'Hang up' }).click();
  await page.getByText(/Call ended: completed/).waitFor({ timeout: 10_000 });
  const summary = await page.getByLabel('After the call').textContent();
  expect(summary).toMatch(/Cost/);
  expect(summary).toMatch(/Latency of each answer\d+ ms/);
  expect(await app.sql('select status, hangup_reason, type from calls where id = $1', [callId])).toEqual([{ status: 'completed', hangup_reason: 'customer', type: 'web' }]);
  // The microphone is released with the call.
  expect(await page.evaluate(() => (globalThis as any).vozgateCall.listening)).toBe(false);
  expect(refused).toEqual([]);
  expect(pageErrors).toEqual([]);
  expect(violations).toEqual([]);
});

runInBrowser('names, before the call, the keys this server lacks for an assistant’s engine, and shows the refusal if a call is tried', async () => {
  // This server has no OPENAI_API_KEY for the Realtime engine: a multimodal assistant cannot speak here.
  const [{ id: voice }] = await app.sql(`select id from voices where mode = 'multimodal' order by id limit 1`);
  const assistant = await app.outboundAssistant(me, { assistant_name: 'Sem voz', engine_type: 'multimodal', voice_id: voice, llm_model: 'gpt-realtime' });
  const own = await launchChromium(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream']);
  try {
    const page = await own.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${app.url}/talk`);
    await page.getByLabel('Token').fill(me.token);
    await page.getByRole('button', { name: 'Connect' }).click();
    const picker = page.getByLabel('Assistant');
    await until('the assistants listed', async () => picker.locator('option').allTextContents(), (names) => names.some((n) => n.startsWith('Sem voz')));
    await picker.selectOption(String(assistant));
    await expect(page.getByRole('status').textContent()).resolves.toContain('set OPENAI_API_KEY');
    expect(await page.getByRole('button', { name: 'Start call' }).isDisabled()).toBe(true);

    // A call tried anyway (an older page, a script) is refused by the server, and the page says why.
    await page.evaluate(() => ((globalThis as any).document.getElementById('start').disabled = false));
    await page.getByRole('button', { name: 'Start call' }).click();
    await page.getByText(/Could not start the call: .*OPENAI_API_KEY/).waitFor({ timeout: 10_000 });
    expect(await app.sql('select id from calls where assistant_id = $1', [assistant])).toEqual([]);
    expect(pageErrors).toEqual([]);
  } finally {
    await own.close();
  }
});
