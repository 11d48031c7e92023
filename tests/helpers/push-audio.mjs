/**
 * A page that pushes its audio faster than real time, in a process of its own so that its CPU
 * is not the server's (issue 49, item 3): `node push-audio.mjs <web call url> <speed> [deaf]`,
 * run with an IPC channel (tests/helpers/audio-pusher.ts starts it).
 *
 * It connects, waits for the call's `listening` state and says `{ready}`; on `{go}` it sends
 * 20 ms frames of 16 kHz PCM16 speech (tests/fixtures/speech-pt-br-16k.wav, looped) at `speed`
 * times real time, from a timer that catches up when it fires late so the rate holds on a loaded
 * machine, until the connection ends; then it says `{closed: {code, reason}, sentMs, pushedMs}`
 * (the audio sent, and the wall-clock ms from `go` to the end) and exits.
 *
 * `deaf` is a hostile page: it speaks WebSocket over a bare TCP socket and ignores vozgate's
 * close frame, pushing on until vozgate drops the connection (a ws client stops at the close).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const [url, speedArg, mode] = process.argv.slice(2);
const speed = Number(speedArg);
const FRAME_MS = 20;
const FRAME_BYTES = 640;
const wav = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'speech-pt-br-16k.wav'));
const pcm = wav.subarray(44, wav.length - ((wav.length - 44) % FRAME_BYTES));
const frames = [];
for (let at = 0; at < pcm.length; at += FRAME_BYTES) frames.push(pcm.subarray(at, at + FRAME_BYTES));

let sent = 0;
let started = 0;
let timer;
let closed = { code: 1006, reason: '' };

const onText = (text) => {
  const message = JSON.parse(text);
  if (message.type === 'state' && message.state === 'listening' && !started) process.send({ ready: true });
};
const finish = () => {
  clearInterval(timer);
  const pushedMs = started ? performance.now() - started : 0;
  process.send({ closed, sentMs: sent * FRAME_MS, pushedMs }, () => process.exit(0));
};
const fail = (error) => process.send({ error: String(error) }, () => process.exit(1));

/** A page's socket: `send(frame)` while `open()`. */
const page = mode === 'deaf' ? deafSocket() : wsSocket();

const push = () => {
  const due = Math.floor(((performance.now() - started) * speed) / FRAME_MS) + 1;
  while (sent < due && page.open()) page.send(frames[sent++ % frames.length]);
  if (!page.alive()) clearInterval(timer);
};
process.on('message', (message) => {
  if (!message.go || started) return;
  started = performance.now();
  push();
  timer = setInterval(push, 5);
});

function wsSocket() {
  const socket = new WebSocket(url);
  socket.on('message', (data, binary) => binary || onText(data.toString()));
  socket.on('close', (code, reason) => {
    closed = { code, reason: reason.toString() };
    finish();
  });
  socket.on('error', fail);
  return { open: () => socket.readyState === WebSocket.OPEN, alive: () => socket.readyState === WebSocket.OPEN, send: (frame) => socket.send(frame) };
}

function deafSocket() {
  const { hostname, port, pathname, search } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let upgraded = false;
  let alive = true;
  let input = Buffer.alloc(0);
  socket.on('connect', () => {
    const key = randomBytes(16).toString('base64');
    socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  });
  socket.on('data', (chunk) => {
    input = Buffer.concat([input, chunk]);
    if (!upgraded) {
      const end = input.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (!input.subarray(0, end).toString().startsWith('HTTP/1.1 101')) return fail(new Error(input.subarray(0, end).toString()));
      upgraded = true;
      input = input.subarray(end + 4);
    }
    // vozgate's frames: unmasked, each read whole once it is all here.
    for (;;) {
      if (input.length < 2) return;
      let length = input[1] & 0x7f;
      let at = 2;
      if (length === 126) [length, at] = [input.length >= 4 ? input.readUInt16BE(2) : Infinity, 4];
      else if (length === 127) [length, at] = [input.length >= 10 ? Number(input.readBigUInt64BE(2)) : Infinity, 10];
      if (input.length < at + length) return;
      const opcode = input[0] & 0x0f;
      const payload = input.subarray(at, at + length);
      input = input.subarray(at + length);
      if (opcode === 1) onText(payload.toString());
      // The close frame is read, and ignored: the page pushes on.
      else if (opcode === 8) closed = { code: payload.length >= 2 ? payload.readUInt16BE(0) : 1005, reason: payload.subarray(2).toString() };
    }
  });
  socket.on('error', () => {}); // the close that follows ends it
  socket.on('close', () => {
    alive = false;
    finish();
  });
  // A masked binary frame of 640 bytes (a zero mask: the server cannot tell).
  const header = Buffer.from([0x82, 0x80 | 126, FRAME_BYTES >> 8, FRAME_BYTES & 0xff, 0, 0, 0, 0]);
  // What the kernel will not take waits: what is sent is what vozgate can read.
  return { open: () => alive && upgraded && !socket.writableNeedDrain, alive: () => alive, send: (frame) => socket.write(Buffer.concat([header, frame])) };
}
