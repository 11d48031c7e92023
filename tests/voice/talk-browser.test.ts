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
import { buildConsole, signIn } from '../helpers/console-browser';

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
  // The page's 16 kHz, as it is, all the way to Deepgram.
  expect(Object.fromEntries(heard.query)).toMatchObject({ encoding: 'linear16', sample_rate: '16000' });
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

runInBrowser('after a call that failed, /talk and the console’s Talk box show how it ended with the server’s sentence (Deepgram refusing the stream)', async () => {
  // The console the server serves is the built one (dist/console).
  buildConsole();
  const assistant = await app.outboundAssistant(me, {
    assistant_name: 'Ana recusada',
    initial_message: 'Olá!',
    who_speaks_first: 'AI assistant',
    record_call: false,
    noise_cancellation: false,
  });
  const own = await launchChromium(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', '--mute-audio']);
  deepgram.refuse = true;
  try {
    const page = await own.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    // /talk: the hang-up reason, then the server's sentence.
    await page.goto(`${app.url}/talk`);
    await page.getByLabel('Token').fill(me.token);
    await page.getByRole('button', { name: 'Connect' }).click();
    const picker = page.getByLabel('Assistant');
    await until('the assistants listed', async () => picker.locator('option').allTextContents(), (names) => names.some((n) => n.startsWith('Ana recusada')));
    await picker.selectOption(String(assistant));
    await page.getByRole('button', { name: 'Start call' }).click();
    const said = page.getByText(/^Call ended: /);
    await said.waitFor({ timeout: 20_000 });
    expect(await said.textContent()).toMatch(/^Call ended: \w+ \(stt-failed: Deepgram refused the stream: HTTP 401/);
    const [{ id: first }] = await app.sql(`select id from calls where assistant_id = $1 order by id desc limit 1`, [assistant]);
    const recorded = (await app.graphql(`{ call(id: ${first}) { hangup_reason hangup_detail } }`, undefined, me.token)).body.data.call;
    expect(recorded.hangup_reason).toBe('stt-failed');
    expect(await said.textContent()).toContain(recorded.hangup_detail);

    // The console's Talk box: the reason in words, then the same sentence.
    await signIn(page, app.url, me.token);
    await page.goto(`${app.url}/console/assistants/${assistant}`);
    const talkBox = page.locator('section.talk');
    await talkBox.getByRole('button', { name: 'Talk', exact: true }).click();
    const ended = talkBox.locator('[data-hangup-reason="stt-failed"]');
    await ended.waitFor({ timeout: 20_000 });
    const [{ id: second }] = await app.sql(`select id from calls where assistant_id = $1 order by id desc limit 1`, [assistant]);
    expect(second).not.toBe(first);
    const detail = (await app.graphql(`{ call(id: ${second}) { hangup_detail } }`, undefined, me.token)).body.data.call.hangup_detail;
    expect(detail).toMatch(/^Deepgram refused the stream: HTTP 401/);
    expect(await ended.innerText()).toContain(`Ended: speech recognition failed. ${detail}`);
    expect(await ended.getAttribute('role')).toBe('alert');
    expect(JSON.stringify(await page.content())).not.toContain(DEEPGRAM_KEY);
    expect(pageErrors).toEqual([]);
  } finally {
    deepgram.refuse = false;
    await own.close();
  }
}, 180_000);

/** Amplitude of the `hz` component of 16 kHz samples (Goertzel, over whole periods of the window). */
function amplitudeAt(pcm: Int16Array, hz: number): number {
  const w = (2 * Math.PI * hz) / 16_000;
  let re = 0;
  let im = 0;
  for (let i = 0; i < pcm.length; i++) (re += pcm[i] * Math.cos(w * i)), (im -= pcm[i] * Math.sin(w * i));
  return (2 * Math.hypot(re, im)) / pcm.length;
}

function rms(pcm: Int16Array): number {
  let sum = 0;
  for (const sample of pcm) sum += sample * sample;
  return Math.sqrt(sum / Math.max(pcm.length, 1));
}

runInBrowser.each([48_000, 44_100])('the worklet at %i Hz: the microphone reaches 16 kHz filtered, not folded, and 16 kHz speech plays at its own pitch and length', async (rate) => {
  const browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  browsers.push(browser);
  const page = await browser.newPage();
  await page.goto(`${app.url}/talk`);
  // Through the page's own worklet at the context's rate: what vozgate-capture posts (16 kHz PCM16) for
  // a tone at the input, and for 16 kHz audio given to vozgate-playback whose output feeds vozgate-capture.
  const heard = await page.evaluate(async (contextRate: number) => {
    const g = globalThis as any;
    const context = new g.AudioContext({ sampleRate: contextRate });
    await context.audioWorklet.addModule('/talk/worklet.js');
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    async function captured(source: (capture: any) => void, ms: number): Promise<number[]> {
      const capture = new g.AudioWorkletNode(context, 'vozgate-capture', { numberOfInputs: 1, numberOfOutputs: 0 });
      const frames: number[] = [];
      capture.port.onmessage = (event: any) => frames.push(...new Int16Array(event.data));
      source(capture);
      await sleep(ms);
      capture.port.onmessage = null;
      return frames;
    }
    const tone = (hz: number) => (capture: any) => {
      const oscillator = new g.OscillatorNode(context, { frequency: hz });
      oscillator.connect(new g.GainNode(context, { gain: 0.5 })).connect(capture);
      oscillator.start();
      oscillator.stop(context.currentTime + 0.5);
    };
    await context.resume();
    const low = await captured(tone(1000), 700);
    const high = await captured(tone(11_000), 700);
    // Half a second at 16 kHz of 1 kHz and 3 kHz, in 20 ms chunks as the page posts them.
    const speech = Float32Array.from({ length: 8000 }, (_, i) => 0.3 * Math.sin((2 * Math.PI * 1000 * i) / 16000) + 0.2 * Math.sin((2 * Math.PI * 3000 * i) / 16000));
    const played = await captured((capture: any) => {
      const playback = new g.AudioWorkletNode(context, 'vozgate-playback', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] });
      playback.connect(capture);
      for (let at = 0; at < speech.length; at += 320) playback.port.postMessage(speech.slice(at, at + 320));
    }, 900);
    const sampleRate = context.sampleRate;
    await context.close();
    return { sampleRate, low, high, played };
  }, rate);
  expect(heard.sampleRate).toBe(rate);

  // A loud stretch of 16 kHz samples: from the first to the last sample above `level`.
  const loud = (samples: number[], level: number) => {
    const first = samples.findIndex((sample) => Math.abs(sample) > level);
    const last = samples.length - 1 - [...samples].reverse().findIndex((sample) => Math.abs(sample) > level);
    return first < 0 ? new Int16Array(0) : Int16Array.from(samples.slice(first, last + 1));
  };
  // 1 kHz passes at its amplitude (0.5 of full scale), at 16 kHz: half a second of it.
  const low = loud(heard.low, 4000);
  expect(low.length / 16_000).toBeCloseTo(0.5, 1);
  const middle = low.subarray(1600, 1600 + 4800);
  expect(amplitudeAt(middle, 1000) / 16_384).toBeCloseTo(1, 1);
  // 11 kHz, beyond what 16 kHz carries, is filtered out: dropping samples would fold it to 5 kHz (48 kHz) at full level.
  expect(rms(Int16Array.from(heard.high))).toBeLessThan(16_384 * 0.01);
  // The assistant's 16 kHz audio plays at the context's rate and comes back the same: length and both tones.
  const played = loud(heard.played, 2000);
  expect(played.length / 16_000).toBeCloseTo(0.5, 1);
  const steady = played.subarray(1600, 1600 + 4800);
  expect(amplitudeAt(steady, 1000) / (0.3 * 32_768)).toBeCloseTo(1, 1);
  expect(amplitudeAt(steady, 3000) / (0.2 * 32_768)).toBeCloseTo(1, 1);
});
