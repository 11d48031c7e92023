import { fork } from 'node:child_process';
import path from 'node:path';

export interface PusherResult {
  closed: { code: number; reason: string };
  /** Audio sent, in ms. */
  sentMs: number;
  /** Wall-clock ms from `go` to the end of the connection. */
  pushedMs: number;
  /** performance.now() in this process when the close was reported. */
  closedAt: number;
}

export interface AudioPusher {
  /** The call is connected and listening: nothing pushed yet. */
  ready: Promise<void>;
  /** Starts pushing. */
  go(): void;
  /** Once vozgate has closed the socket. */
  done: Promise<PusherResult>;
  kill(): void;
}

/**
 * A page pushing audio at `speed` times real time to a web call's socket from a process of its
 * own (tests/helpers/push-audio.mjs), so that its CPU is not the server's under test. `deaf`:
 * a hostile page that ignores vozgate's close frame and pushes on until it is cut off.
 */
export function startAudioPusher(url: string, speed: number, options: { deaf?: boolean } = {}): AudioPusher {
  const child = fork(path.join(__dirname, 'push-audio.mjs'), [url, String(speed), ...(options.deaf ? ['deaf'] : [])], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let ready!: () => void;
  const readyPromise = new Promise<void>((resolve) => (ready = resolve));
  const done = new Promise<PusherResult>((resolve, reject) => {
    child.on('message', (message: any) => {
      if (message.ready) ready();
      else if (message.closed) resolve({ ...message, closedAt: performance.now() });
      else if (message.error) reject(new Error(`the pusher failed: ${message.error}`));
    });
    child.on('exit', (code) => reject(new Error(`the pusher exited with ${code}`)));
  });
  return {
    ready: Promise.race([readyPromise, done.then(() => Promise.reject(new Error('the pusher was closed before it was ready')))]),
    go: () => child.send({ go: true }),
    done,
    kill: () => {
      if (child.exitCode === null) child.kill();
    },
  };
}
