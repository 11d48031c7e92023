import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import WebSocket from 'ws';
import { initOrm } from '../src/db/orm';
import { addPhoneNumber, createAccount } from '../src/modules/accounts/account.service';
import { decode, encode } from '../src/voice/codecs/mulaw';
import { Resampler, type SampleRate } from '../src/voice/codecs/resample';
import { endpointSilenceMs } from '../src/voice/engines/pipeline/endpointing';
import { startFakeDeepgram, type FakeDeepgram } from '../tests/helpers/fakes/deepgram';
import { startFakeOpenAi } from '../tests/helpers/fakes/openai';
import { dropDatabase, freshDatabase, percentile, startVozgate } from './process';
import { incomingCall } from './twilio-call';
import { concat, silence } from '../tests/helpers/espeak';
import { seededRandom } from '../src/lib/seeded-random';

/**
 * `npm run bench -- --only turns [--before REV | --no-before]`: the pipeline engine's
 * turn-taking (issue 51) measured end to end, on the compiled server, over real sockets, with
 * scripted callers: the false-interruption rate, the premature end-of-turn rate and the missed
 * barge-in rate, for this tree ("after") and for an older revision ("before", by default
 * 20b8939~1, the commit before issue 51's first change, built in a git worktree under
 * bench/.cache/turns-before) on the same corpus.
 *
 * The caller is a phone on Twilio Media Streams: a 20 ms mu-law frame every 20 ms (silence
 * between its sounds), and a playout buffer like a phone's: each media frame the server sends
 * plays 20 ms after the one before it ends (or on arrival, when the buffer ran dry); a `mark` is
 * echoed once the audio before it has played; a `clear` drops what is buffered and echoes the
 * pending marks at once (Twilio's documented behaviour). The caller stamps on this process's
 * clock what it sends (each sound's first and last loud frame) and what it hears (each frame as
 * it plays, each clear).
 *
 * The vendors are the tests' fakes (tests/helpers/fakes/deepgram.ts and openai.ts): the STT hears
 * by energy (20 ms frames at RMS >= 400) and ends an utterance after the engine's `endpointing`
 * of silence, each utterance taking the next entry of the call's own script (the words Deepgram's
 * smart_format would write; '' for a noise: no words); the model answers one short sentence 250
 * ms after its request; the speech is 60 ms of tone per character, 120 ms after its request. The
 * script of a case follows the fake's own segmentation of the case's audio (computed here with
 * the fake's threshold and the assistant's endpointing), so two sounds the fake hears as one
 * utterance get one entry with both their words: no case is lost to the fake's bookkeeping.
 *
 * The assistants (one per parallel slot and language, so the fake model tells the calls apart by
 * "slot N" in the system prompt): engine_type pipeline, endpoint_type vad at the default
 * endpoint_sensitivity (2.5: 700 ms), the assistant speaks first a greeting of four sentences
 * (about 10 s), interruptions allowed at the default settings (interrupt_sensitivity 2.5: 575
 * ms of speech), no noise cancellation, no fillers, no ambience. Only settings both revisions
 * know are set: the newer ones (false_interruption_timeout_ms 2000, backchannel_words per
 * language) are at their defaults, which is what is measured. Each target has a fresh database
 * migrated by this tree (creating the account); the older server's migrator accepts it as it is
 * (the newer migrations it does not know are already executed; their columns have defaults).
 *
 * The corpus (per language; fixed texts, pauses and offsets; speech made by espeak-ng at run
 * time and cached in bench/.cache/turns, noises synthesised from seeded noise):
 * 1. noise over the greeting (coughs, bursts of band-limited noise, a door, a clatter; and
 *    wordless voiced sounds from espeak: "hum", "ahem", a long "hmm", a laugh, which the VAD
 *    takes for speech; the STT gives no words): a false interruption when the model is asked a
 *    turn during the case, or the greeting is not heard to its end (the caller heard less of it
 *    than in the control call, which nothing interrupts): the reply was cut and never resumed;
 * 2. backchannels over the greeting ("Aham.", "Okay.", two across a pause): the same measure;
 * 3. digits read in groups after the greeting, with pauses of 0.6-1.2 s between them, and
 *    sentences with a hesitation mid-way (0.85 and 1 s: a pause of 700 ms or less is within the
 *    endpointing itself and tells nothing): a premature end when the model's first request of the
 *    case comes before the caller's last loud frame, or without the last group's words;
 * 4. real barge-ins over the greeting: missed when the greeting plays on (no clear, no gap of
 *    GAP_MS in the playout) until 1.5 s past the caller's last loud frame, or when the caller's
 *    words never reach the model. Stop latency: the caller's first loud frame -> the clear (or
 *    the playout's gap, when the paused speaker held nothing to clear).
 * Each target's server takes one unmeasured call first (a cold first call's greeting had a gap),
 * then its control call alone, then the cases, SLOTS at a time.
 * Why this is the engine's behaviour: the fakes' timing is fixed and their words are scripted;
 * what the caller hears and when the model is asked is the engine's decision alone.
 */

const FRAME_MS = 20;
const FRAME_BYTES = 160;
const RATE = 8000;
/** The fake STT's speech threshold (tests/helpers/fakes/deepgram.ts, SPEECH_RMS). */
const SPEECH_RMS = 400;
/** Default endpoint_sensitivity: both revisions' default; the fake STT's endpointing follows it. */
const ENDPOINT_SENSITIVITY = 2.5;
const STT_FINAL_MS = 150;
const LLM_FIRST_TOKEN_MS = 250;
const TTS_FIRST_BYTE_MS = 120;
/** The default false_interruption_timeout_ms (the newer revision's), for the margins below. */
const FALSE_INTERRUPTION_MS = 2000;
/** A case is over once the caller heard nothing and the model was asked nothing for this long after its sounds. */
const SETTLED_MS = FALSE_INTERRUPTION_MS + 2000;
const CASE_TIMEOUT_MS = 45_000;
/** A silence in the playout at least this long is a stop (a pause or a cut). */
const GAP_MS = 300;
/** A barge-in the greeting outlives by this much past the caller's last loud frame is missed. */
const BARGE_IN_MARGIN_MS = 1500;
/** After the greeting ended (no frame for this long), a kind-3 case starts. */
const GREETING_OVER_MS = 1000;
/** Heard this much less of the greeting than the control call: it was cut. */
const HEARD_TOLERANCE_MS = 200;
const SLOTS = 8;
const PUBLIC_URL = 'http://vozgate.bench';
const ACCOUNT_SID = `AC${randomBytes(16).toString('hex')}`;
const AUTH_TOKEN = randomBytes(16).toString('hex');
const TWILIO = { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, publicUrl: PUBLIC_URL };
const SILENCE = Buffer.alloc(FRAME_BYTES, 0xff).toString('base64');
export const DEFAULT_BEFORE = '20b8939~1';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Language = 'pt' | 'en';
export type CaseKind = 'noise' | 'backchannel' | 'digits' | 'barge-in' | 'control';

// ------------------------------------------------------------------ the corpus

/** A sound of a case: speech by espeak-ng (`say`, what the STT writes as `words`), or a synthesised noise (no words). */
type Sound = { say: string; words: string } | { noise: NoiseName; seed: number };
type NoiseName = 'cough' | 'double-cough' | 'burst-0.3' | 'burst-0.8' | 'burst-1.5' | 'door' | 'clatter';

interface Part {
  sound: Sound;
  /** Its start, in ms from the anchor (the greeting's first frame heard; for digits, the greeting's end). */
  atMs: number;
}

interface Case {
  id: string;
  lang: Language;
  kind: CaseKind;
  parts: Part[];
}

const GREETING: Record<Language, string> = {
  pt: 'Olá, aqui é a Ana, da central de atendimento. Estou ligando para falar sobre o seu pedido. Ele foi enviado ontem pela transportadora. Posso confirmar alguns dados com você agora?',
  en: 'Hello, this is Ana from the customer service team. I am calling about your recent order. It was shipped yesterday by the carrier. Can I confirm a few details with you now?',
};
const ANSWER: Record<Language, string> = { pt: 'Certo, obrigada.', en: 'Okay, thank you.' };
const VOICE: Record<Language, string> = { pt: 'pt-br', en: 'en-us' };
const LANGUAGE_NAME: Record<Language, string> = { pt: 'Portuguese', en: 'English' };

const say = (text: string, words: string): Sound => ({ say: text, words });
const noise = (name: NoiseName, seed: number): Sound => ({ noise: name, seed });
/** Sounds one after the other, each `gapMs` after the end of the one before: filled in once their lengths are known. */
interface Sequence {
  sounds: Sound[];
  gapsMs: number[];
  atMs: number;
}
const seq = (atMs: number, ...items: (Sound | number)[]): Sequence => ({
  atMs,
  sounds: items.filter((item): item is Sound => typeof item !== 'number'),
  gapsMs: items.filter((item): item is number => typeof item === 'number'),
});

function noiseCases(lang: Language): [string, Sequence][] {
  const s = lang === 'pt' ? 0 : 100;
  return [
    ['cough at 1.5 s', seq(1500, noise('cough', s + 1))],
    ['cough at 4 s', seq(4000, noise('cough', s + 2))],
    ['double cough at 2.5 s', seq(2500, noise('double-cough', s + 3))],
    ['double cough at 6 s', seq(6000, noise('double-cough', s + 4))],
    // Voiced sounds without words (the STT gives none): what the VAD takes for speech.
    ['"hum hum" (throat) at 3 s', seq(3000, say(lang === 'pt' ? 'hum hum' : 'hmm hmm', ''))],
    ['"ahem ahem" (throat clearing) at 2 s', seq(2000, say('ahem ahem', ''))],
    ['a long "hmmm" at 4 s', seq(4000, say('hmmmmmm', ''))],
    ['"humm humm humm" at 5.5 s', seq(5500, say('humm humm humm', ''))],
    ['a laugh ("ha ha ha ha") at 3 s', seq(3000, say('ha ha ha ha', ''))],
    ['noise 0.3 s at 2 s', seq(2000, noise('burst-0.3', s + 5))],
    ['noise 0.8 s at 3.5 s', seq(3500, noise('burst-0.8', s + 6))],
    ['noise 1.5 s at 5 s', seq(5000, noise('burst-1.5', s + 7))],
    ['door at 4.5 s', seq(4500, noise('door', s + 8))],
    ['clatter at 2.2 s', seq(2200, noise('clatter', s + 9))],
  ];
}

function backchannelCases(lang: Language): [string, Sequence][] {
  if (lang === 'pt') {
    return [
      ['"aham" at 2 s', seq(2000, say('aham', 'Aham.'))],
      ['"uhum" at 3 s', seq(3000, say('uhum', 'Uhum.'))],
      ['"sim" at 4 s', seq(4000, say('sim', 'Sim.'))],
      ['"tá" at 2.5 s', seq(2500, say('tá', 'Tá.'))],
      ['"certo" at 5 s', seq(5000, say('certo', 'Certo.'))],
      ['"entendi" at 3.5 s', seq(3500, say('entendi', 'Entendi.'))],
      ['"aham" 0.5 s "sim" at 2 s', seq(2000, say('aham', 'Aham.'), 500, say('sim', 'Sim.'))],
      ['"certo" 0.65 s "entendi" at 4 s', seq(4000, say('certo', 'Certo.'), 650, say('entendi', 'Entendi.'))],
    ];
  }
  return [
    ['"yeah" at 2 s', seq(2000, say('yeah', 'Yeah.'))],
    ['"okay" at 3 s', seq(3000, say('okay', 'Okay.'))],
    ['"uh-huh" at 4 s', seq(4000, say('uh huh', 'Uh-huh.'))],
    ['"right" at 2.5 s', seq(2500, say('right', 'Right.'))],
    ['"mhm" at 5 s', seq(5000, say('mm hmm', 'Mhm.'))],
    ['"yeah" 0.5 s "right" at 2 s', seq(2000, say('yeah', 'Yeah.'), 500, say('right', 'Right.'))],
    ['"okay" 0.65 s "uh-huh" at 4 s', seq(4000, say('okay', 'Okay.'), 650, say('uh huh', 'Uh-huh.'))],
  ];
}

/** Read after the greeting: the groups as people say them (`say`), as Deepgram writes them (`words`: the last one punctuated). */
function digitCases(lang: Language): [string, Sequence][] {
  if (lang === 'pt') {
    return [
      ['CPF in 4 groups', seq(800, say('meu cpf é um dois três', 'Meu CPF é 123'), 900, say('quatro cinco seis', '456'), 1100, say('sete oito nove', '789'), 800, say('zero nove', '09.'))],
      ['CEP in 2 groups', seq(800, say('o cep é zero um três um zero', 'O CEP é 01310'), 1000, say('um zero zero', '100.'))],
      ['phone in 3 groups', seq(800, say('meu telefone é onze', 'Meu telefone é 11'), 800, say('nove oito sete seis cinco', '98765'), 1200, say('quatro três dois um', '4321.'))],
      ['order number in 2 groups', seq(800, say('o número do pedido é quatro cinco sete', 'O número do pedido é 457'), 1000, say('oito nove dois', '892.'))],
      ['hesitation: "eu queria saber" 0.85 s', seq(800, say('eu queria saber', 'Eu queria saber'), 850, say('do meu pedido', 'do meu pedido.'))],
      ['hesitation: "então eu acho que" 1 s', seq(800, say('então eu acho que', 'Então eu acho que'), 1000, say('vou querer o plano maior', 'vou querer o plano maior.'))],
    ];
  }
  return [
    ['card in 4 groups', seq(800, say('my card number is four one one one', 'My card number is 4111'), 1000, say('one one one one', '1111'), 900, say('one one one one', '1111'), 1100, say('one one one one', '1111.'))],
    ['zip code in 2 groups', seq(800, say('my zip code is nine four one', 'My zip code is 941'), 800, say('one zero', '10.'))],
    ['phone in 3 groups', seq(800, say('my number is four one five', 'My number is 415'), 900, say('five five five', '555'), 1200, say('zero one nine nine', '0199.'))],
    ['order number in 2 groups', seq(800, say('the order number is five eight', 'The order number is 58'), 1000, say('three two one seven', '3217.'))],
    ['hesitation: "I wanted to ask" 0.85 s', seq(800, say('I wanted to ask', 'I wanted to ask'), 850, say('about my order', 'about my order.'))],
    ['hesitation: "so I think that" 1 s', seq(800, say('so I think that', 'So I think that'), 1000, say('I will take the bigger plan', "I'll take the bigger plan."))],
  ];
}

function bargeInCases(lang: Language): [string, Sequence][] {
  if (lang === 'pt') {
    return [
      ['"Espera, eu tenho uma dúvida..." at 2 s', seq(2000, say('espera, eu tenho uma dúvida sobre a fatura', 'Espera, eu tenho uma dúvida sobre a fatura.'))],
      ['"Não, não é isso." at 3.5 s', seq(3500, say('não, não é isso', 'Não, não é isso.'))],
      ['"Quem está falando?" at 1.5 s', seq(1500, say('quem está falando', 'Quem está falando?'))],
      ['"Pode parar, eu não quero." at 5 s', seq(5000, say('pode parar, eu não quero', 'Pode parar, eu não quero.'))],
      ['"Não." at 4 s (short)', seq(4000, say('não', 'Não.'))],
    ];
  }
  return [
    ['"Wait, I have a question..." at 2 s', seq(2000, say('wait, I have a question about my bill', 'Wait, I have a question about my bill.'))],
    ['"No, stop." at 3.5 s', seq(3500, say('no, stop', 'No, stop.'))],
    ['"Who is this?" at 1.5 s', seq(1500, say('who is this', 'Who is this?'))],
    ['"Sorry, I\'m busy right now." at 5 s', seq(5000, say('sorry, I am busy right now', "Sorry, I'm busy right now."))],
    ['"Stop." at 4 s (short)', seq(4000, say('stop', 'Stop.'))],
  ];
}

/** A case's sounds, as mu-law audio from its anchor, and the script the fake STT gives it. */
interface Track {
  /** 20 ms frames of mu-law from the anchor (silence where no sound is). */
  frames: Buffer[];
  /** Per part: its first and last loud frame (the fake's speech threshold). */
  parts: { first: number; last: number; words: string | null }[];
  script: string[];
}

// ------------------------------------------------------------------ sounds

/** A band-pass biquad (RBJ's cookbook, constant peak gain) over `input`, in place. */
function bandPass(input: Float64Array, centreHz: number, q: number): Float64Array {
  const w = (2 * Math.PI * centreHz) / RATE;
  const alpha = Math.sin(w) / (2 * q);
  const [b0, b2, a0, a1, a2] = [alpha, -alpha, 1 + alpha, -2 * Math.cos(w), 1 - alpha];
  let [x1, x2, y1, y2] = [0, 0, 0, 0];
  for (let i = 0; i < input.length; i++) {
    const x = input[i];
    const y = (b0 * x + b2 * x2 - a1 * y1 - a2 * y2) / a0;
    [x2, x1, y2, y1] = [x1, x, y1, y];
    input[i] = y;
  }
  return input;
}

/** Noise of `ms`, band-limited, under an envelope (time in s -> gain), peaking at `peak`. */
function shapedNoise(rand: () => number, ms: number, centreHz: number, q: number, envelope: (t: number) => number, peak: number): Int16Array {
  const n = Math.round((ms * RATE) / 1000);
  const raw = new Float64Array(n);
  for (let i = 0; i < n; i++) raw[i] = rand() * 2 - 1;
  bandPass(raw, centreHz, q);
  let max = 0;
  for (let i = 0; i < n; i++) max = Math.max(max, Math.abs(raw[i]));
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round((raw[i] / (max || 1)) * peak * envelope(i / RATE));
  return out;
}



/** A cough: a sharp attack, a fast decay, a weaker voiced tail. */
function cough(rand: () => number): Int16Array {
  const burst = shapedNoise(rand, 220, 900 + rand() * 500, 0.8, (t) => Math.min(1, t / 0.004) * Math.exp(-t / 0.07), 16000);
  const tail = shapedNoise(rand, 160, 450, 2, (t) => Math.min(1, t / 0.02) * Math.exp(-t / 0.05), 6000);
  return concat(burst, tail);
}

function synthesise(name: NoiseName, seed: number): Int16Array {
  const rand = seededRandom(seed);
  switch (name) {
    case 'cough':
      return cough(rand);
    case 'double-cough':
      return concat(cough(rand), silence(180), cough(rand));
    case 'burst-0.3':
    case 'burst-0.8':
    case 'burst-1.5': {
      const ms = Number(name.slice(6)) * 1000;
      // A sharp attack, then a slow fall over the burst (a hiss, a passing truck's rumble...).
      return shapedNoise(rand, ms, 700 + rand() * 1200, 0.7, (t) => Math.min(1, t / 0.003) * (1 - (0.7 * t * 1000) / ms), 12000);
    }
    case 'door': {
      // A slam: a low thump, then the frame's rattle.
      const thump = shapedNoise(rand, 180, 120, 3, (t) => Math.min(1, t / 0.002) * Math.exp(-t / 0.05), 20000);
      const rattle = shapedNoise(rand, 320, 2200, 1.5, (t) => Math.exp(-t / 0.1), 7000);
      return concat(thump, rattle);
    }
    case 'clatter': {
      // Cutlery dropped: clicks of a few ms, at random over a second.
      const out = new Int16Array(RATE);
      for (let k = 0; k < 14; k++) {
        const click = shapedNoise(rand, 25, 2500 + rand() * 1500, 1.2, (t) => Math.exp(-t / 0.006), 8000 + rand() * 10000);
        const at = Math.floor(rand() * (out.length - click.length));
        for (let i = 0; i < click.length; i++) out[at + i] = Math.max(-32768, Math.min(32767, out[at + i] + click[i]));
      }
      return out;
    }
  }
}

/** espeak-ng's speech of `text` at 8 kHz, its silence around it trimmed, its peak at -8 dBFS (a phone's loud talker); cached. */
async function speech(cacheDir: string, voice: string, text: string): Promise<Int16Array> {
  const file = path.join(cacheDir, `${voice}-${createHash('sha1').update(text).digest('hex').slice(0, 16)}.pcm`);
  if (existsSync(file)) {
    const bytes = await fs.readFile(file);
    return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length >> 1);
  }
  const wav = execFileSync('espeak-ng', ['-v', voice, '-s', '160', '--stdout', text]);
  const rate = wav.readUInt32LE(24);
  const data = wav.indexOf('data', 12) + 8; // espeak streams: the chunk's size is not filled in
  const samples = new Int16Array(Math.floor((wav.length - data) / 2));
  for (let i = 0; i < samples.length; i++) samples[i] = wav.readInt16LE(data + i * 2);
  const narrow = new Resampler(rate as SampleRate, RATE).process(samples);
  let [from, to] = [0, narrow.length];
  while (from < to && Math.abs(narrow[from]) < 300) from++;
  while (to > from && Math.abs(narrow[to - 1]) < 300) to--;
  const trimmed = narrow.slice(from, to);
  let peak = 1;
  for (const sample of trimmed) peak = Math.max(peak, Math.abs(sample));
  const out = Int16Array.from(trimmed, (sample) => Math.round((sample / peak) * 13000));
  await fs.mkdir(cacheDir, { recursive: true });
  await fs.writeFile(file, Buffer.from(out.buffer, out.byteOffset, out.byteLength));
  return out;
}

const loud = (frame: Buffer) => {
  const samples = decode(frame);
  let energy = 0;
  for (const sample of samples) energy += sample * sample;
  return Math.sqrt(energy / samples.length) >= SPEECH_RMS;
};

/**
 * A case's track: its sounds placed at their offsets (a sequence's sounds each its gap after the
 * end of the one before), in 20 ms mu-law frames; and the fake STT's script for it, by the
 * fake's own rule: an utterance from a loud frame to `endpointingMs` of quiet ones, its words
 * those of the sounds in it.
 */
async function track(cacheDir: string, lang: Language, sequence: Sequence, endpointingMs: number): Promise<Track> {
  const placed: { at: number; pcm: Int16Array; words: string | null }[] = [];
  let at = Math.round((sequence.atMs * RATE) / 1000);
  for (const [i, sound] of sequence.sounds.entries()) {
    const pcm = 'say' in sound ? await speech(cacheDir, VOICE[lang], sound.say) : synthesise(sound.noise, sound.seed);
    placed.push({ at, pcm, words: 'say' in sound ? sound.words : null });
    at += pcm.length + Math.round(((sequence.gapsMs[i] ?? 0) * RATE) / 1000);
  }
  const end = Math.max(...placed.map((p) => p.at + p.pcm.length));
  const pcm = new Int16Array(Math.ceil(end / FRAME_BYTES) * FRAME_BYTES + FRAME_BYTES);
  for (const p of placed) pcm.set(p.pcm, p.at);
  const mulaw = Buffer.from(encode(pcm));
  const frames = Array.from({ length: mulaw.length / FRAME_BYTES }, (_, i) => mulaw.subarray(i * FRAME_BYTES, (i + 1) * FRAME_BYTES));
  const isLoud = frames.map(loud);
  const parts = placed.map((p) => {
    const [from, to] = [Math.floor(p.at / FRAME_BYTES), Math.ceil((p.at + p.pcm.length) / FRAME_BYTES)];
    const first = isLoud.indexOf(true, from);
    const last = isLoud.lastIndexOf(true, to - 1);
    if (first < 0 || first >= to || last < from) throw new Error(`turns: a sound of "${p.words ?? 'noise'}" is too quiet for the fake STT`);
    return { first, last, words: p.words };
  });
  // The fake's utterances: onset at a loud frame, over once `endpointingMs` of quiet frames followed the last loud one.
  const quietFrames = Math.ceil(endpointingMs / FRAME_MS);
  const utterances: [number, number][] = [];
  for (let i = 0; i < frames.length; i++) {
    if (!isLoud[i]) continue;
    const open = utterances.at(-1);
    if (open && i - open[1] <= quietFrames) open[1] = i;
    else utterances.push([i, i]);
  }
  const script = utterances.map(([from, to]) =>
    parts
      .filter((part) => part.words && part.first <= to && part.last >= from)
      .map((part) => part.words)
      .join(' '),
  );
  return { frames, parts, script };
}

// ------------------------------------------------------------------ the caller

/** What one call saw, on this process's clock (performance.now()). */
interface Observed {
  /** The anchor: the greeting's first frame played (noise, backchannels, barge-ins), or its end (digits). */
  anchorAt: number | null;
  greetingEndAt: number | null;
  /** Each part's first and last loud frame, as sent. */
  sent: { firstAt: number | null; lastAt: number | null }[];
  /** Each frame heard: when it began to play. */
  played: number[];
  clears: number[];
  /** The model's requests for this call: when, and the caller's last words in them. */
  chats: { at: number; said: string }[];
  timedOut: boolean;
}

class Phone {
  readonly seen: Observed;
  private sequence = 0;
  private nextFrameAt = performance.now();
  private frameTimer: NodeJS.Timeout | null = null;
  /** When the playout buffer runs dry: each frame plays after the ones before it. */
  private playoutEndsAt = 0;
  private pendingMarks: { at: number; text: string; timer: NodeJS.Timeout }[] = [];
  /** The track's next frame to send, once it is started. */
  private position: number | null = null;
  private done: () => void = () => {};
  private readonly createdAt = performance.now();
  private closed = false;
  readonly finished: Promise<void>;

  constructor(
    private readonly socket: WebSocket,
    private readonly twilio: { streamSid: string; callSid: string },
    private readonly kase: Case,
    private readonly track: Track,
  ) {
    this.seen = { anchorAt: null, greetingEndAt: null, sent: track.parts.map(() => ({ firstAt: null, lastAt: null })), played: [], clears: [], chats: [], timedOut: false };
    this.finished = new Promise((resolve) => (this.done = resolve));
    socket.on('message', (raw: Buffer) => this.onMessage(raw.toString()));
    this.tick();
  }

  hangUp(): void {
    this.closed = true;
    if (this.frameTimer) clearTimeout(this.frameTimer);
    for (const mark of this.pendingMarks) clearTimeout(mark.timer);
    if (this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify({ event: 'stop', sequenceNumber: String(++this.sequence), streamSid: this.twilio.streamSid, stop: { accountSid: ACCOUNT_SID, callSid: this.twilio.callSid } }));
      this.socket.close();
    }
  }

  /** A frame every 20 ms on the call's own clock; those a late timer missed go at once, as a phone's would. */
  private tick(): void {
    const now = performance.now();
    while (this.nextFrameAt <= now) {
      this.sendFrame(this.nextFrameAt);
      this.nextFrameAt += FRAME_MS;
    }
    this.check(now);
    if (this.closed) return;
    this.frameTimer = setTimeout(() => this.tick(), Math.max(1, this.nextFrameAt - performance.now()));
  }

  private sendFrame(at: number): void {
    let payload = SILENCE;
    if (this.position !== null && this.position < this.track.frames.length) {
      const index = this.position++;
      payload = this.track.frames[index].toString('base64');
      for (const [i, part] of this.track.parts.entries()) {
        if (index === part.first) this.seen.sent[i].firstAt = at;
        if (index === part.last) this.seen.sent[i].lastAt = at;
      }
    }
    const n = ++this.sequence;
    this.socket.send(`{"event":"media","sequenceNumber":"${n}","media":{"track":"inbound","chunk":"${n}","timestamp":"${n * FRAME_MS}","payload":"${payload}"},"streamSid":"${this.twilio.streamSid}"}`);
  }

  /** Starts the track at the anchor; ends the case once it has settled. */
  private check(now: number): void {
    const { seen } = this;
    const heardUntil = this.playoutEndsAt;
    if (this.kase.kind === 'digits') {
      if (seen.greetingEndAt === null && seen.played.length > 0 && now - heardUntil >= GREETING_OVER_MS) {
        seen.greetingEndAt = heardUntil;
        seen.anchorAt = now;
        this.position = 0;
      }
    } else if (seen.anchorAt === null && seen.played.length > 0) {
      seen.anchorAt = seen.played[0];
      this.position = Math.max(0, Math.round((now - seen.played[0]) / FRAME_MS));
    }
    if (seen.anchorAt === null) {
      if (now - this.createdAt > CASE_TIMEOUT_MS) this.finish(true);
      return;
    }
    if (this.position === null || this.position < this.track.frames.length) return;
    const last = Math.max(heardUntil, seen.chats.at(-1)?.at ?? 0, ...seen.sent.map((s) => s.lastAt ?? 0));
    if (now - last >= SETTLED_MS) this.finish(false);
    else if (now - seen.anchorAt > CASE_TIMEOUT_MS) this.finish(true);
  }

  private finish(timedOut: boolean): void {
    if (this.seen.greetingEndAt === null && this.seen.played.length) this.seen.greetingEndAt = this.playoutEndsAt;
    this.seen.timedOut = timedOut;
    this.hangUp();
    this.done();
  }

  private onMessage(text: string): void {
    const now = performance.now();
    if (text.startsWith('{"event":"media"')) {
      const start = Math.max(now, this.playoutEndsAt);
      this.seen.played.push(start);
      this.playoutEndsAt = start + FRAME_MS;
    } else if (text.startsWith('{"event":"mark"')) {
      // Echoed once the audio before it has played.
      const mark = { at: this.playoutEndsAt, text, timer: undefined as unknown as NodeJS.Timeout };
      mark.timer = setTimeout(() => {
        this.pendingMarks = this.pendingMarks.filter((m) => m !== mark);
        if (this.socket.readyState === WebSocket.OPEN) this.socket.send(text);
      }, Math.max(0, this.playoutEndsAt - now));
      this.pendingMarks.push(mark);
    } else if (text.startsWith('{"event":"clear"')) {
      // The buffer is dropped: what had not begun to play never plays; the pending marks come back at once.
      this.seen.clears.push(now);
      while (this.seen.played.length && this.seen.played.at(-1)! > now) this.seen.played.pop();
      this.playoutEndsAt = Math.min(this.playoutEndsAt, now);
      for (const mark of this.pendingMarks) {
        clearTimeout(mark.timer);
        if (this.socket.readyState === WebSocket.OPEN) this.socket.send(mark.text);
      }
      this.pendingMarks = [];
    }
  }
}

// ------------------------------------------------------------------ the measures

export interface TurnsCase {
  target: string;
  lang: Language;
  kind: CaseKind;
  id: string;
  /** Failed its measure (a false interruption, a premature end, a missed barge-in), and why. */
  failed: boolean;
  why: string;
  /** The greeting heard (ms of audio), and the control call's. */
  heard_ms: number;
  control_ms: number;
  clears: number;
  /** The longest silence in the greeting after the anchor (between two of its frames: a pause). */
  longest_gap_ms: number;
  /** Stopped (a clear or a gap) and heard to its end without a turn. */
  paused_resumed: boolean;
  model_requests: number;
  /** Barge-ins: the caller's first loud frame -> the clear (or the gap). */
  stop_ms: number | null;
  /** Digits: the model's first request after the caller's last loud frame (negative: before it). */
  model_after_last_speech_ms: number | null;
}

/** The silences in the playout of GAP_MS or more that begin between `from` and `to`: [start, length] of each. */
function gaps(played: number[], from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 1; i < played.length; i++) {
    const gap = played[i] - (played[i - 1] + FRAME_MS);
    if (played[i - 1] >= from && played[i - 1] <= to && gap >= GAP_MS) out.push([played[i - 1] + FRAME_MS, gap]);
  }
  return out;
}

const normal = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const round = (ms: number) => Math.round(ms);

function measure(target: string, kase: Case, tr: Track, seen: Observed, controlMs: number): TurnsCase {
  const anchor = seen.anchorAt ?? 0;
  const chats = seen.chats.filter((chat) => chat.at >= anchor || kase.kind !== 'digits');
  // The greeting heard: every frame before the model's first answer could play.
  const firstChat = seen.chats[0]?.at ?? Infinity;
  const heardMs = seen.played.filter((at) => at < firstChat).length * FRAME_MS;
  const greetingGaps = gaps(seen.played, anchor, firstChat);
  // The longest silence within the greeting: between two of its frames (not the one before the model's answer).
  const longest = Math.max(0, ...greetingGaps.filter(([at, ms]) => at + ms < firstChat).map(([, ms]) => ms));
  const base = {
    target,
    lang: kase.lang,
    kind: kase.kind,
    id: kase.id,
    heard_ms: heardMs,
    control_ms: controlMs,
    clears: seen.clears.length,
    longest_gap_ms: round(longest),
    model_requests: chats.length,
    stop_ms: null as number | null,
    model_after_last_speech_ms: null as number | null,
  };
  const firstSpeech = seen.sent[0]?.firstAt ?? null;
  const lastSpeech = seen.sent.at(-1)?.lastAt ?? null;
  const cutShort = heardMs < controlMs - HEARD_TOLERANCE_MS;
  if (seen.timedOut && seen.anchorAt === null) return { ...base, failed: true, why: 'the greeting never came', paused_resumed: false };
  switch (kase.kind) {
    case 'control':
    case 'noise':
    case 'backchannel': {
      const stopped = seen.clears.some((at) => at >= anchor) || greetingGaps.length > 0;
      const why = chats.length
        ? `the model was asked a turn ("${chats[0].said}") ${round(chats[0].at - (lastSpeech ?? anchor))} ms after the sound`
        : cutShort
          ? `the greeting was cut: ${heardMs} ms of it heard, ${controlMs} ms in the control call`
          : '';
      return { ...base, failed: why !== '', why: why || (stopped ? 'paused, then resumed' : 'not stopped'), paused_resumed: stopped && !why };
    }
    case 'digits': {
      const lastWords = normal(tr.parts.at(-1)!.words ?? '');
      const first = chats[0];
      const afterMs = first && lastSpeech !== null ? round(first.at - lastSpeech) : null;
      const why = !first
        ? 'no turn: the model was never asked'
        : afterMs! < 0
          ? `the model was asked ${-afterMs!} ms before the last group's end, with "${first.said}"`
          : !normal(first.said).endsWith(lastWords)
            ? `the model was asked without the last group: "${first.said}"`
            : '';
      return { ...base, failed: why !== '', why: why || `asked ${afterMs} ms after the last group`, paused_resumed: false, model_after_last_speech_ms: afterMs };
    }
    case 'barge-in': {
      const words = normal(tr.parts.map((p) => p.words ?? '').join(' '));
      // A stop: a clear, or a silence in the playout, after the caller began and before the greeting would have ended by itself.
      const greetingEnd = anchor + controlMs - HEARD_TOLERANCE_MS;
      const stops = [...seen.clears, ...greetingGaps.map(([at]) => at)].filter((at) => at >= firstSpeech! && at < greetingEnd).sort((a, b) => a - b);
      const stopAt = stops.find((at) => at <= lastSpeech! + BARGE_IN_MARGIN_MS) ?? null;
      const reached = chats.find((chat) => normal(chat.said).includes(words));
      const why =
        stopAt === null
          ? `the greeting went on: no clear and no gap within ${BARGE_IN_MARGIN_MS} ms of the caller's end${reached ? `; the model was asked ${round(reached.at - lastSpeech!)} ms after it` : ''}`
          : !reached
            ? `the caller's words never reached the model${chats.length ? ` (asked with "${chats[0].said}")` : ''}`
            : '';
      return {
        ...base,
        failed: why !== '',
        why: why || `stopped, answered (asked ${round(reached!.at - lastSpeech!)} ms after the caller's end)`,
        paused_resumed: false,
        stop_ms: stopAt === null ? null : round(stopAt - firstSpeech!),
      };
    }
  }
  throw new Error(`turns: no measure for ${kase.kind}`);
}

// ------------------------------------------------------------------ the run

export interface TurnsRow {
  target: string;
  lang: Language;
  cases: number;
  false_interruptions: number;
  false_interruption_cases: number;
  noise_failures: number;
  noise_cases: number;
  backchannel_failures: number;
  backchannel_cases: number;
  premature_ends: number;
  digit_cases: number;
  missed_barge_ins: number;
  barge_in_cases: number;
  paused_resumed: number;
  pause_silence_p50_ms: number | null;
  pause_silence_max_ms: number | null;
  stop_p50_ms: number | null;
  stop_max_ms: number | null;
}

export interface TurnsResult {
  node: string;
  before: string | null;
  load: string;
  endpoint_silence_ms: number;
  rows: TurnsRow[];
  cases: TurnsCase[];
  seconds: number;
}

interface Vendors {
  deepgram: FakeDeepgram;
  openaiUrl: string;
  /** The calls in progress, by slot and language: where the model's requests are stamped. */
  bySlot: Map<string, Observed>;
  close(): Promise<void>;
}

const slotKey = (slot: number, lang: Language) => `${lang}:${slot}`;

async function startVendors(): Promise<Vendors> {
  const bySlot = new Map<string, Observed>();
  const deepgram = await startFakeDeepgram('dg-bench');
  deepgram.finalLatencyMs = STT_FINAL_MS;
  const openai = await startFakeOpenAi('sk-bench');
  openai.defaultChat = (body) => {
    const at = performance.now();
    const system = String(body.messages.find((m: { role: string }) => m.role === 'system')?.content ?? '');
    const [, lang, slot] = /\[(pt|en) slot (\d+)\]/.exec(system) ?? [];
    const said = String([...body.messages].reverse().find((m: { role: string }) => m.role === 'user')?.content ?? '');
    bySlot.get(slotKey(Number(slot), lang as Language))?.chats.push({ at, said });
    return { text: ANSWER[(lang as Language) ?? 'en'], firstTokenMs: LLM_FIRST_TOKEN_MS };
  };
  openai.defaultSpeech = () => ({ firstByteMs: TTS_FIRST_BYTE_MS });
  const forget = setInterval(() => {
    openai.chatRequests.length = 0;
    openai.speechRequests.length = 0;
  }, 1000);
  return {
    deepgram,
    openaiUrl: openai.url,
    bySlot,
    close: async () => {
      clearInterval(forget);
      await openai.close();
      await deepgram.close();
    },
  };
}

/** The ringing is one at a time: the fake STT hands out its sessions in the order they connect. */
let ringing: Promise<unknown> = Promise.resolve();
let callSeq = 0;

async function ring(port: number, vendors: Vendors, number: string, kase: Case, tr: Track): Promise<Phone> {
  const turn = ringing.then(async () => {
    const answered = await incomingCall(port, TWILIO, `+55119${String(20_000_000 + ++callSeq)}`, number);
    if (!answered) throw new Error('turns: the call was turned away busy');
    const { socket, streamSid, callSid } = answered;
    const session = await vendors.deepgram.session(15_000);
    // This call's words only: the calls run in parallel.
    session.transcripts = [...tr.script];
    return new Phone(socket, { streamSid, callSid }, kase, tr);
  });
  ringing = turn.catch(() => undefined);
  return turn;
}

/** The corpus of a language, control call first. */
function corpus(lang: Language): { kase: Case; sequence: Sequence }[] {
  const out: { kase: Case; sequence: Sequence }[] = [{ kase: { id: 'control (silent caller)', lang, kind: 'control', parts: [] }, sequence: seq(0) }];
  const add = (kind: CaseKind, cases: [string, Sequence][]) => {
    for (const [id, sequence] of cases) out.push({ kase: { id, lang, kind, parts: [] }, sequence });
  };
  add('noise', noiseCases(lang));
  add('backchannel', backchannelCases(lang));
  add('digits', digitCases(lang));
  add('barge-in', bargeInCases(lang));
  return out;
}

interface Target {
  name: string;
  root: string;
}

/** The older revision, built in its own worktree (once; kept in bench/.cache for the next run). */
async function buildBefore(root: string, rev: string, log: (line: string) => void): Promise<string> {
  const dir = path.join(root, 'bench', '.cache', 'turns-before');
  const commit = execFileSync('git', ['-C', root, 'rev-parse', `${rev}^{commit}`], { encoding: 'utf8' }).trim();
  if (!existsSync(dir)) {
    log(`turns: a worktree of ${rev} (${commit.slice(0, 7)}) in ${dir}`);
    execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', dir, commit], { stdio: 'ignore' });
  } else if (execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim() !== commit) {
    execFileSync('git', ['-C', dir, 'checkout', '--detach', commit], { stdio: 'ignore' });
  }
  if (!existsSync(path.join(dir, 'node_modules'))) await fs.symlink(await fs.realpath(path.join(root, 'node_modules')), path.join(dir, 'node_modules'));
  log(`turns: building ${rev} (${commit.slice(0, 7)})`);
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, stdio: 'ignore', env: { ...process.env, CONSOLE: 'false' } });
  return dir;
}

async function runTarget(adminUrl: string, target: Target, vendors: Vendors, cacheDir: string, node: string, log: (line: string) => void): Promise<TurnsCase[]> {
  const database = `vozgate_bench_turns_${target.name}`;
  const databaseUrl = await freshDatabase(adminUrl, database);
  // This tree's migrations: the older server starts on a schema at least as new as its own.
  const orm = await initOrm({ databaseUrl });
  const twilioApi = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  await new Promise<void>((resolve) => twilioApi.listen(0, '127.0.0.1', resolve));
  const env: NodeJS.ProcessEnv = {
    PUBLIC_URL,
    TELEPHONY_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: ACCOUNT_SID,
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_API_BASE: `http://127.0.0.1:${(twilioApi.address() as AddressInfo).port}`,
    DEEPGRAM_API_KEY: 'dg-bench',
    DEEPGRAM_URL: vendors.deepgram.url,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: vendors.openaiUrl,
    PLAN_MAX_PARALLEL_CALLS: '1000',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    VOICE_MAX_LOAD_DELAY_MS: '0',
  };
  let server: Awaited<ReturnType<typeof startVozgate>> | null = null;
  try {
    const { account, token } = await createAccount(orm.em.fork(), { name: 'Turns bench', balance: '100000' });
    const [{ id: voice }] = await orm.em.fork().execute(`select id from voices where mode = 'pipeline' order by id limit 1`);
    server = await startVozgate(target.root, databaseUrl, env, [], node);
    log(`turns: ${target.name}: server on ${server.port} (log ${server.logFile})`);
    const numbers = new Map<string, string>();
    for (const lang of ['pt', 'en'] as Language[]) {
      for (let slot = 0; slot < SLOTS; slot++) {
        const number = `+55119560${lang === 'pt' ? 1 : 2}${String(slot).padStart(4, '0')}`;
        const phone = await addPhoneNumber(orm.em.fork(), { accountId: account.id, number, smsEnabled: false, expiresAt: null });
        const created = await fetch(`http://127.0.0.1:${server.port}/api/user/assistant`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            assistant_name: `Turns ${lang} ${slot}`,
            voice_id: voice,
            language: LANGUAGE_NAME[lang],
            llm_model: 'gpt-4o-mini',
            calls_direction: 'receive',
            engine_type: 'pipeline',
            timezone: 'America/Sao_Paulo',
            initial_message: GREETING[lang],
            system_prompt: `[${lang} slot ${slot}] You confirm orders. Be brief.`,
            phone_number_id: phone.id,
            who_speaks_first: 'AI assistant',
            endpoint_type: 'vad',
            endpoint_sensitivity: ENDPOINT_SENSITIVITY,
            noise_cancellation: false,
            ambient_sound_volume: 0,
            filler_audios: false,
            allow_interruptions: true,
            max_call_duration: 1200,
            re_engagement_interval: 600,
            max_silence_duration: 120,
            record_call: false,
          }),
        });
        if (created.status !== 201) throw new Error(`turns: ${target.name}: the assistant was refused: ${await created.text()}`);
        numbers.set(slotKey(slot, lang), number);
      }
    }
    // A call nobody measures first: the VAD's model, the clients and the code paths warm (a cold first call's greeting had a gap).
    const warm = await ring(server.port, vendors, numbers.get(slotKey(0, 'pt'))!, { id: 'warm-up', lang: 'pt', kind: 'control', parts: [] }, { frames: [], parts: [], script: [] });
    await warm.finished;
    await sleep(300);
    const results: TurnsCase[] = [];
    for (const lang of ['pt', 'en'] as Language[]) {
      const cases = corpus(lang);
      const tracks = await Promise.all(cases.map(({ sequence }) => (sequence.sounds.length ? track(cacheDir, lang, sequence, endpointSilenceMs(ENDPOINT_SENSITIVITY)) : Promise.resolve(null))));
      const seen: Observed[] = new Array(cases.length);
      const runCase = async (slot: number, i: number) => {
        const kase = cases[i].kase;
        const tr = tracks[i] ?? { frames: [], parts: [], script: [] };
        const phone = await ring(server!.port, vendors, numbers.get(slotKey(slot, lang))!, kase, tr);
        vendors.bySlot.set(slotKey(slot, lang), phone.seen);
        await phone.finished;
        vendors.bySlot.delete(slotKey(slot, lang));
        seen[i] = phone.seen;
        await sleep(300); // the call's end reaches the server before the slot's next call
      };
      // The control call alone (nothing else loads the server), then the others a slot each.
      await runCase(0, 0);
      let next = 1;
      await Promise.all(
        Array.from({ length: SLOTS }, async (_, slot) => {
          while (next < cases.length) await runCase(slot, next++);
        }),
      );
      const controlMs = seen[0].played.length * FRAME_MS;
      const controlGaps = gaps(seen[0].played, 0, Infinity);
      if (controlGaps.length) log(`turns: ${target.name} ${lang}: the control call's greeting had gaps: ${JSON.stringify(controlGaps)}`);
      for (const [i, { kase }] of cases.entries()) {
        const row = measure(target.name, kase, tracks[i] ?? { frames: [], parts: [], script: [] }, seen[i], controlMs);
        log(`turns: ${target.name} ${lang} ${kase.kind} ${kase.id}: ${row.failed ? 'FAILED' : 'ok'}: ${row.why}`);
        results.push(row);
      }
    }
    return results;
  } finally {
    if (server && server.child.exitCode === null) {
      const exited = new Promise((resolve) => server!.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
    await new Promise((resolve) => twilioApi.close(resolve));
    await orm.close();
    await dropDatabase(adminUrl, database);
  }
}

function summarise(cases: TurnsCase[]): TurnsRow[] {
  const rows: TurnsRow[] = [];
  for (const target of [...new Set(cases.map((c) => c.target))]) {
    for (const lang of ['pt', 'en'] as Language[]) {
      const mine = cases.filter((c) => c.target === target && c.lang === lang && c.kind !== 'control');
      const of = (kind: CaseKind) => mine.filter((c) => c.kind === kind);
      const failed = (list: TurnsCase[]) => list.filter((c) => c.failed).length;
      const pauses = mine.filter((c) => c.paused_resumed).map((c) => c.longest_gap_ms).sort((a, b) => a - b);
      const stops = of('barge-in').flatMap((c) => (c.stop_ms === null ? [] : [c.stop_ms])).sort((a, b) => a - b);
      rows.push({
        target,
        lang,
        cases: mine.length,
        false_interruptions: failed([...of('noise'), ...of('backchannel')]),
        false_interruption_cases: of('noise').length + of('backchannel').length,
        noise_failures: failed(of('noise')),
        noise_cases: of('noise').length,
        backchannel_failures: failed(of('backchannel')),
        backchannel_cases: of('backchannel').length,
        premature_ends: failed(of('digits')),
        digit_cases: of('digits').length,
        missed_barge_ins: failed(of('barge-in')),
        barge_in_cases: of('barge-in').length,
        paused_resumed: pauses.length,
        pause_silence_p50_ms: pauses.length ? percentile(pauses, 50) : null,
        pause_silence_max_ms: pauses.length ? pauses.at(-1)! : null,
        stop_p50_ms: stops.length ? percentile(stops, 50) : null,
        stop_max_ms: stops.length ? stops.at(-1)! : null,
      });
    }
  }
  return rows;
}

/** The scenario: the corpus on the "before" revision (unless `before` is null), then on this tree. */
export async function runTurnsScenario(
  adminUrl: string,
  root: string,
  options: { before: string | null },
  log: (line: string) => void,
  node = process.execPath,
): Promise<TurnsResult> {
  const started = performance.now();
  const load = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const cacheDir = path.join(root, 'bench', '.cache', 'turns');
  const targets: Target[] = [];
  if (options.before) targets.push({ name: 'before', root: await buildBefore(root, options.before, log) });
  targets.push({ name: 'after', root });
  const vendors = await startVendors();
  const cases: TurnsCase[] = [];
  try {
    for (const target of targets) cases.push(...(await runTarget(adminUrl, target, vendors, cacheDir, node, log)));
  } finally {
    await vendors.close();
  }
  return {
    node: execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(),
    before: options.before ? `${options.before} (${execFileSync('git', ['-C', root, 'rev-parse', '--short', `${options.before}^{commit}`], { encoding: 'utf8' }).trim()})` : null,
    load: `${load} (at the start); ${execFileSync('uptime', { encoding: 'utf8' }).trim()} (at the end)`,
    endpoint_silence_ms: endpointSilenceMs(ENDPOINT_SENSITIVITY),
    rows: summarise(cases),
    cases,
    seconds: Math.round((performance.now() - started) / 1000),
  };
}

const rate = (n: number, of: number) => `${n}/${of} (${of ? Math.round((n / of) * 1000) / 10 : 0}%)`;
const ms = (value: number | null) => (value === null ? '-' : `${value}`);

/** The results as markdown: the summary per target and language, then every case. */
export function turnsMarkdown(result: TurnsResult): string {
  const lines = [
    `Turn-taking (issue 51): scripted callers over Twilio Media Streams (espeak-ng speech, synthesised noises) on the pipeline engine with the tests' fake vendors; endpoint_type vad at ${result.endpoint_silence_ms} ms, interruptions at the default settings; "before" = ${result.before ?? 'not run'}, "after" = this tree. Targets: false interruptions and premature ends under 5% of their cases, missed barge-ins 0. Node ${result.node}; ${result.seconds} s in all; machine load: ${result.load}.`,
    '',
    '| target | lang | cases | false interruptions (noise + backchannels) | noise | backchannels | premature ends (digits) | missed barge-ins | paused, then resumed | silence heard in a pause p50 / max (ms) | barge-in stop p50 / max (ms) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...result.rows.map(
      (r) =>
        `| ${r.target} | ${r.lang} | ${r.cases} | ${rate(r.false_interruptions, r.false_interruption_cases)} | ${rate(r.noise_failures, r.noise_cases)} | ${rate(r.backchannel_failures, r.backchannel_cases)} | ${rate(r.premature_ends, r.digit_cases)} | ${rate(r.missed_barge_ins, r.barge_in_cases)} | ${r.paused_resumed} | ${ms(r.pause_silence_p50_ms)} / ${ms(r.pause_silence_max_ms)} | ${ms(r.stop_p50_ms)} / ${ms(r.stop_max_ms)} |`,
    ),
  ];
  return lines.join('\n');
}

export function turnsCaseTable(result: TurnsResult): string {
  return [
    '| target | lang | kind | case | result | greeting heard / control (ms) | clears | longest silence in the greeting (ms) | model requests | stop (ms) | model after last speech (ms) |',
    '| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...result.cases.map(
      (c) =>
        `| ${c.target} | ${c.lang} | ${c.kind} | ${c.id.replace(/\|/g, '/')} | ${c.failed ? '**FAIL**: ' : ''}${c.why.replace(/\|/g, '/')} | ${c.heard_ms} / ${c.control_ms} | ${c.clears} | ${c.longest_gap_ms} | ${c.model_requests} | ${ms(c.stop_ms)} | ${ms(c.model_after_last_speech_ms)} |`,
    ),
  ].join('\n');
}
