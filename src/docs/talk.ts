import { JS, type Asset } from './static';

/**
 * `GET /talk` (design.md, "Web calls"): talk to one of the account's assistants from a browser,
 * through the microphone, on a web call. Everything is served by this server, no CDN and no
 * framework: the page, `talk.js` (the call itself, and the `<vozgate-talk>` element a customer
 * puts on their own site) and the AudioWorklet that captures and plays the audio.
 *
 * The call's audio: the microphone (echo cancellation, noise suppression and gain control on)
 * in an AudioContext at the device's own rate, resampled to 16 kHz in the worklet and sent as
 * PCM16 frames of 20 ms; the assistant's 16 kHz PCM16 resampled to the context's rate and played
 * from a queue, with the socket's marks echoed when the audio before them has played, and the
 * queue dropped on `clear` (the caller interrupted). The context is not asked for 16 kHz: Firefox
 * refuses to connect a microphone running at another rate ("Connecting AudioNodes from
 * AudioContexts with different sample-rate is currently not supported"), and every browser
 * would resample anyway.
 */

/**
 * Sample-rate conversion in the worklet, between the context's rate (any, 8 to 96 kHz: 44.1 and
 * 48 kHz are the usual) and the socket's 16 kHz, as a stream: the design of the server's
 * src/voice/codecs/resample.ts (a windowed-sinc low-pass, Blackman, 32 periods of the higher
 * rate long, cut at 90% of the lower rate's Nyquist frequency, so that what 16 kHz cannot carry
 * is filtered out, not folded back as aliases), taken at the output's exact position between
 * input samples: the ratio's L phases (160 for 44.1 kHz, 1 for 48 kHz), at most MAX_PHASES (a rate
 * with no common factor with 16 kHz is then placed within 1/MAX_PHASES of a sample).
 */
const resampler = String.raw`const MAX_PHASES = 1024;

function gcd(a, b) {
  return b === 0 ? a : gcd(b, a % b);
}

class Resampler {
  constructor(from, to) {
    this.from = from;
    this.to = to;
    const divisor = gcd(from, to);
    this.up = to / divisor;
    this.down = from / divisor;
    // Half the filter in input samples: 16 periods of the higher rate each side of the output's position.
    const half = Math.ceil(16 * Math.max(1, from / to));
    this.taps = 2 * half;
    this.phases = Math.min(this.up, MAX_PHASES);
    // Cycles per input sample: 90% of the lower rate's Nyquist frequency.
    const cutoff = 0.45 * Math.min(1, to / from);
    this.filter = new Float32Array(this.phases * this.taps);
    for (let p = 0; p < this.phases; p++) {
      let sum = 0;
      for (let j = 0; j < this.taps; j++) {
        // Input sample base - j, seen from the output's position (base + p / phases), delayed by half.
        const t = p / this.phases + j - half;
        const sinc = t === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t);
        const weight = 0.42 + 0.5 * Math.cos((Math.PI * t) / half) + 0.08 * Math.cos((2 * Math.PI * t) / half);
        this.filter[p * this.taps + j] = sinc * weight;
        sum += sinc * weight;
      }
      // Each phase passes a constant unchanged: no ripple at the rate of the phases.
      for (let j = 0; j < this.taps; j++) this.filter[p * this.taps + j] /= sum;
    }
    // The last taps - 1 input samples (silence at first), then the chunk.
    this.work = new Float32Array(this.taps - 1);
    this.consumed = 0;
    this.next = 0;
  }

  /** The output for the next chunk of input (Float32Array); the same rate gives a copy. */
  process(input) {
    if (this.from === this.to) return input.slice();
    const keep = this.taps - 1;
    if (this.work.length !== keep + input.length) {
      const work = new Float32Array(keep + input.length);
      work.set(this.work.subarray(0, keep));
      this.work = work;
    }
    const work = this.work;
    work.set(input, keep);
    const total = this.consumed + input.length;
    const out = new Float32Array(Math.ceil((input.length * this.up) / this.down) + 1);
    let count = 0;
    for (;;) {
      const position = this.next * this.down;
      const base = Math.floor(position / this.up);
      if (base >= total) break;
      const offset = Math.floor(((position - base * this.up) * this.phases) / this.up) * this.taps;
      const at = base - this.consumed + keep;
      let sum = 0;
      for (let j = 0; j < this.taps; j++) sum += this.filter[offset + j] * work[at - j];
      out[count++] = sum;
      this.next++;
    }
    work.copyWithin(0, work.length - keep);
    this.consumed = total;
    return out.subarray(0, count);
  }
}
`;

/**
 * The AudioWorklet: `vozgate-capture` posts 20 ms PCM16 frames at 16 kHz; `vozgate-playback`
 * plays a queue of 16 kHz chunks, with marks; both at the context's rate (the worklet's `sampleRate`).
 */
const worklet = resampler + String.raw`
const RATE = 16000;
const FRAME = 320; // 20 ms at 16 kHz

class Capture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.resampler = new Resampler(sampleRate, RATE);
    this.frame = new Int16Array(FRAME);
    this.filled = 0;
  }
  process(inputs) {
    const input = inputs[0] && inputs[0][0];
    if (!input) return true;
    const channel = this.resampler.process(input);
    for (let i = 0; i < channel.length; i++) {
      const s = Math.max(-1, Math.min(1, channel[i]));
      this.frame[this.filled++] = s < 0 ? s * 32768 : s * 32767;
      if (this.filled === FRAME) {
        this.port.postMessage(this.frame.buffer, [this.frame.buffer]);
        this.frame = new Int16Array(FRAME);
        this.filled = 0;
      }
    }
    return true;
  }
}

class Playback extends AudioWorkletProcessor {
  constructor() {
    super();
    // Audio chunks (Float32Array, at the context's rate) and marks ({ mark }), in order.
    this.queue = [];
    this.offset = 0;
    this.played = 0;
    this.loud = 0;
    this.resampler = new Resampler(RATE, sampleRate);
    this.port.onmessage = (event) => {
      const data = event.data;
      if (data === 'clear') {
        this.queue = [];
        this.offset = 0;
        // What follows a clear does not continue the audio dropped.
        this.resampler = new Resampler(RATE, sampleRate);
      } else if (data instanceof Float32Array) {
        this.queue.push(this.resampler.process(data));
      } else if (data && data.mark !== undefined) {
        this.queue.push(data);
      }
    };
  }
  process(inputs, outputs) {
    const out = outputs[0][0];
    let at = 0;
    while (this.queue.length) {
      const head = this.queue[0];
      if (!(head instanceof Float32Array)) {
        this.queue.shift();
        this.port.postMessage({ mark: head.mark });
        continue;
      }
      if (at === out.length) break;
      const take = Math.min(out.length - at, head.length - this.offset);
      for (let i = 0; i < take; i++) {
        const sample = head[this.offset + i];
        out[at + i] = sample;
        if (Math.abs(sample) > 0.01) this.loud++;
      }
      at += take;
      this.played += take;
      this.offset += take;
      if (this.offset === head.length) {
        this.queue.shift();
        this.offset = 0;
      }
    }
    for (let i = at; i < out.length; i++) out[i] = 0;
    if (currentFrame % 4096 < 128) this.port.postMessage({ played: this.played, loud: this.loud });
    return true;
  }
}

registerProcessor('vozgate-capture', Capture);
registerProcessor('vozgate-playback', Playback);
`;

/**
 * The call, as a module: `VozgateCall` (a web call's socket, microphone and speaker, its events
 * `state`, `transcript`, `ended`, `error`) and the `<vozgate-talk>` element built on it.
 */
const talk = String.raw`const WORKLET = new URL('./worklet.js', import.meta.url).href;

/**
 * A web call: connect(url) opens its socket (the url POST /api/user/calls/web answered, token
 * included) and the microphone; events: 'state' (detail: connected, speaking, listening),
 * 'transcript' (detail: { speaker, text, final, latency_ms }), 'ended' (detail: { status,
 * reason, detail: the server's sentence when its engine failed, duration, total_cost }), 'error' (detail: a message).
 */
export class VozgateCall extends EventTarget {
  constructor() {
    super();
    this.stats = { played: 0, loud: 0, sent: 0 };
    this.ended = null;
  }

  /**
   * The microphone and the speaker, before any call is started (so that a refused microphone
   * starts no call); connect() does it when it was not done. Released again on failure.
   */
  async prepare() {
    if (this.context) return;
    try {
      // The device's own rate: the worklet resamples (see the top of src/docs/talk.ts).
      this.context = new AudioContext({ latencyHint: 'interactive' });
      await this.context.audioWorklet.addModule(WORKLET);
      this.microphone = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
      });
      this.capture = new AudioWorkletNode(this.context, 'vozgate-capture', { numberOfInputs: 1, numberOfOutputs: 0 });
      this.playback = new AudioWorkletNode(this.context, 'vozgate-playback', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] });
      this.playback.connect(this.context.destination);
      this.source = this.context.createMediaStreamSource(this.microphone);
      this.source.connect(this.capture);
      await this.context.resume();
    } catch (error) {
      this.release();
      throw error;
    }
  }

  async connect(url) {
    await this.prepare();

    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    this.capture.port.onmessage = (event) => {
      if (socket.readyState === WebSocket.OPEN) {
        socket.send(event.data);
        this.stats.sent++;
      }
    };
    this.playback.port.onmessage = (event) => {
      const data = event.data;
      if (data.mark !== undefined) this.send({ type: 'mark', name: data.mark });
      else Object.assign(this.stats, data);
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => {
      if (!this.ended) {
        const reason = event.code === 1008 ? 'refused: the token is wrong, used or expired' : 'the connection closed';
        this.emit('error', reason);
      }
      this.release();
    };
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = () => reject(new Error('could not connect'));
    });
  }

  /** Hangs up: the microphone stops at once; the socket closes when vozgate says how the call ended (or in 3 s). */
  hangup() {
    this.send({ type: 'hangup' });
    if (this.microphone) for (const track of this.microphone.getTracks()) track.stop();
    const socket = this.socket;
    setTimeout(() => socket && socket.readyState !== WebSocket.CLOSED && socket.close(), 3000);
  }

  receive(data) {
    if (data instanceof ArrayBuffer) {
      const pcm = new Int16Array(data);
      const samples = new Float32Array(pcm.length);
      for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i] / 32768;
      this.playback.port.postMessage(samples, [samples.buffer]);
      return;
    }
    const message = JSON.parse(data);
    if (message.type === 'mark') this.playback.port.postMessage({ mark: message.name });
    else if (message.type === 'clear') this.playback.port.postMessage('clear');
    else if (message.type === 'state') this.emit('state', message.state);
    else if (message.type === 'transcript') this.emit('transcript', message);
    else if (message.type === 'ended') {
      this.ended = message;
      this.emit('ended', message);
    }
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  release() {
    if (this.microphone) for (const track of this.microphone.getTracks()) track.stop();
    if (this.context && this.context.state !== 'closed') this.context.close();
  }

  /** Whether the microphone is still live (it stops when the call ends). */
  get listening() {
    return Boolean(this.microphone && this.microphone.getTracks().some((track) => track.readyState === 'live'));
  }
}

/**
 * <vozgate-talk start-url="/your-backend/web-call">: a button that starts a web call with the
 * url and token your backend got from POST /api/user/calls/web (it answers vozgate's answer, or
 * its data), and hangs it up. The account's API token never reaches the browser.
 */
export class VozgateTalk extends HTMLElement {
  connectedCallback() {
    if (this.button) return;
    this.button = document.createElement('button');
    this.button.type = 'button';
    this.button.textContent = this.getAttribute('label') || 'Talk';
    this.status = document.createElement('span');
    this.status.setAttribute('role', 'status');
    this.append(this.button, ' ', this.status);
    this.button.addEventListener('click', () => (this.call ? this.call.hangup() : this.start()));
  }

  async start() {
    this.button.disabled = true;
    try {
      const call = new VozgateCall();
      await call.prepare();
      const response = await fetch(this.getAttribute('start-url'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).catch((error) => {
        call.release();
        throw error;
      });
      const body = await response.json();
      const url = (body.data || body).url;
      if (!response.ok || !url) {
        call.release();
        throw new Error(body.message || 'could not start the call');
      }
      this.call = call;
      call.addEventListener('state', (event) => (this.status.textContent = event.detail));
      call.addEventListener('ended', () => this.finish('ended'));
      call.addEventListener('error', (event) => this.finish(event.detail));
      await call.connect(url);
      this.button.textContent = 'Hang up';
    } catch (error) {
      this.finish(error.message);
    } finally {
      this.button.disabled = false;
    }
  }

  finish(status) {
    this.call = null;
    this.button.textContent = this.getAttribute('label') || 'Talk';
    this.status.textContent = status;
  }
}

if (!customElements.get('vozgate-talk')) customElements.define('vozgate-talk', VozgateTalk);
`;

/** The /talk page's own script: the token, the assistants, the call, the transcript and, after it, what it cost. */
const page = String.raw`import { VozgateCall } from './talk.js';

const $ = (id) => document.getElementById(id);
const tokenField = $('token');
const assistants = $('assistant');
const transcript = $('transcript');
const state = $('state');
const summary = $('summary');
let call = null;

tokenField.value = sessionStorage.getItem('vozgate.token') || '';

function api(path, options) {
  const headers = { authorization: 'Bearer ' + tokenField.value.trim(), 'content-type': 'application/json' };
  return fetch('/api' + path, Object.assign({ headers }, options)).then(async (response) => {
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.message || response.statusText);
    return body;
  });
}

function say(text) {
  state.textContent = text;
}

$('connect').addEventListener('click', async () => {
  sessionStorage.setItem('vozgate.token', tokenField.value.trim());
  try {
    const list = await api('/user/assistants');
    missing = new Map(list.map((a) => [String(a.id), a.voice_missing || []]));
    assistants.replaceChildren(...list.map((a) => new Option(a.name + ' (' + a.engine_type + ')', a.id)));
    if (list.length) chosen();
    else {
      $('start').disabled = true;
      say('This account has no assistant yet.');
    }
  } catch (error) {
    say('Could not list the assistants: ' + error.message);
  }
});

/** Before a call: whether this server can give the chosen assistant a voice, and else which keys it lacks. */
let missing = new Map();
function chosen() {
  const lacking = missing.get(assistants.value) || [];
  $('start').disabled = lacking.length > 0;
  say(lacking.length
    ? 'This server cannot give this assistant a voice: set ' + lacking.join(', ') + ' in its environment and restart it (see the README, "Try an assistant in your browser").'
    : 'Choose an assistant and start a call.');
}
assistants.addEventListener('change', chosen);

/** One line of the transcript per turn: a turn's words replace its line until it is final. */
const lines = { customer: null, assistant: null };
function show(message) {
  let line = lines[message.speaker];
  if (!line) {
    line = document.createElement('p');
    line.className = message.speaker;
    transcript.append(line);
    lines[message.speaker] = line;
  }
  const who = message.speaker === 'customer' ? 'You' : 'Assistant';
  line.textContent = who + ': ' + message.text;
  if (message.final) {
    if (message.latency_ms != null) line.dataset.latency = message.latency_ms;
    lines[message.speaker] = null;
  }
}

function idle() {
  $('hangup').disabled = true;
  $('start').disabled = (missing.get(assistants.value) || []).length > 0;
}

$('start').addEventListener('click', async () => {
  $('start').disabled = true;
  transcript.replaceChildren();
  summary.replaceChildren();
  lines.customer = null;
  lines.assistant = null;
  try {
    // The microphone first: when the browser refuses it, no call is started.
    call = new VozgateCall();
    window.vozgateCall = call;
    await call.prepare();
    const started = await api('/user/calls/web', { method: 'POST', body: JSON.stringify({ assistant_id: Number(assistants.value) }) });
    call.addEventListener('state', (event) => say('Call ' + started.data.call_id + ': ' + event.detail));
    call.addEventListener('transcript', (event) => show(event.detail));
    call.addEventListener('ended', (event) => finished(event.detail));
    call.addEventListener('error', (event) => {
      say('The call ended: ' + event.detail);
      idle();
    });
    say('Connecting...');
    await call.connect(started.data.url);
    $('hangup').disabled = false;
  } catch (error) {
    if (call) call.release();
    say('Could not start the call: ' + error.message);
    idle();
  }
});

$('hangup').addEventListener('click', () => call && call.hangup());

function finished(ended) {
  idle();
  // The server's sentence of why, when its engine failed (a vendor refused or could not be reached).
  const why = ended.reason ? ' (' + ended.reason + (ended.detail ? ': ' + ended.detail : '') + ')' : '';
  say('Call ended: ' + (ended.status || 'unknown') + why);
  const rows = [
    ['Duration', ended.duration == null ? 'unknown' : ended.duration + ' s'],
    ['Cost', ended.total_cost == null ? 'unknown' : String(ended.total_cost)],
  ];
  const latencies = [...transcript.querySelectorAll('p.assistant[data-latency]')].map((p) => p.dataset.latency + ' ms');
  rows.push(['Latency of each answer', latencies.length ? latencies.join(', ') : 'none measured']);
  for (const [name, value] of rows) {
    const term = document.createElement('dt');
    term.textContent = name;
    const detail = document.createElement('dd');
    detail.textContent = value;
    summary.append(term, detail);
  }
}
`;

/**
 * The page's one inline style, beside the console's stylesheet (its look: Pico and
 * console/src/styles.css, linked when the console is built): only what is the page's own. The
 * page's policy allows it by its hash (src/web/page-headers.ts).
 */
export const TALK_STYLE = `
    .talk-page { max-width: 46rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; overflow-wrap: anywhere; }
    .talk-page .buttons { display: flex; flex-wrap: wrap; gap: .5rem; }
    .talk-page .buttons button { width: auto; margin: 0; }
    #transcript { min-height: 8rem; }
    #transcript:empty::before { content: "The transcript shows here during a call."; color: #5b6472; }
    #transcript p { margin: .3rem 0; }
    #transcript .assistant { color: #3730a3; }
    #summary dt { font-weight: 600; }
    #summary dd { margin: 0 0 .4rem; }
`;

/**
 * The page, in the console's look: its stylesheets (`stylesheets`, the built console's, as its
 * index.html links them; none when the console is not built, and the page is plain) and its
 * header bar.
 */
export function talkPage(stylesheets: readonly string[]): string {
  const links = stylesheets.map((href) => `\n  <link rel="stylesheet" href="${escapeAttribute(href)}">`).join('');
  return `<!doctype html>
<html lang="en" data-theme="light">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light">
  <title>Talk to an assistant · vozgate</title>${links}
  <style>${TALK_STYLE}</style>
</head>
<body>
  <header class="topbar">
    <div class="brand"><span class="brand-mark" aria-hidden="true">◉</span>vozgate</div>
    <nav aria-label="vozgate"><a href="/console">Console</a></nav>
  </header>
  <main class="talk-page">
    <header class="page-head"><h1>Talk to an assistant</h1></header>
    <p class="muted lead">Through this browser's microphone, on a web call, with the transcript as it goes.</p>
    <fieldset class="panel">
      <legend>Account</legend>
      <div class="field">
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="off" aria-describedby="token-hint">
        <small id="token-hint">The account's API token, kept for this browser tab only.</small>
      </div>
      <div class="buttons"><button id="connect" type="button">Connect</button></div>
    </fieldset>
    <fieldset class="panel">
      <legend>Call</legend>
      <div class="field">
        <label for="assistant">Assistant</label>
        <select id="assistant"></select>
      </div>
      <div class="buttons">
        <button id="start" type="button" disabled>Start call</button>
        <button id="hangup" type="button" class="secondary" disabled>Hang up</button>
      </div>
      <p id="state" class="notice" role="status">Paste the account's token and connect.</p>
    </fieldset>
    <section id="transcript" class="panel" role="region" aria-label="Transcript" aria-live="polite"></section>
    <dl id="summary" aria-label="After the call"></dl>
  </main>
  <script type="module" src="/talk/page.js"></script>
</body>
</html>
`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The page's scripts; the page itself is talkPage(), made by src/web/talk.ts with the console's stylesheets. */
export const talkAssets: Record<string, Asset> = {
  '/talk/talk.js': { text: talk, type: JS },
  '/talk/page.js': { text: page, type: JS },
  '/talk/worklet.js': { text: worklet, type: JS },
};

/** The worklet's resampler, as the browser runs it, for tests that run it elsewhere. */
export const TALK_RESAMPLER_SOURCE = resampler;
