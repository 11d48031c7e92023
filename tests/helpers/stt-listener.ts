import { EventEmitter } from 'node:events';
import type { ServiceError, SttEvents, Transcript } from '../../src/voice/services/service';

export type Heard = { event: 'transcript'; transcript: Transcript } | { event: 'speechStarted' } | { event: 'utteranceEnd' } | { event: 'failed'; error: ServiceError };

/** SttEvents that keep what they hear, in order, with a way to wait for it. */
export function sttListener() {
  const heard: Heard[] = [];
  const changed = new EventEmitter();
  const note = (entry: Heard) => {
    heard.push(entry);
    changed.emit('change');
  };
  const events: SttEvents = {
    transcript: (transcript) => note({ event: 'transcript', transcript }),
    speechStarted: () => note({ event: 'speechStarted' }),
    utteranceEnd: () => note({ event: 'utteranceEnd' }),
    failed: (error) => note({ event: 'failed', error }),
  };
  const until = (check: () => boolean, timeoutMs = 10_000) =>
    new Promise<void>((resolve, reject) => {
      if (check()) return resolve();
      const onChange = () => {
        if (!check()) return;
        clearTimeout(timer);
        changed.off('change', onChange);
        resolve();
      };
      const timer = setTimeout(() => {
        changed.off('change', onChange);
        reject(new Error(`the stream's events waited in vain; heard ${JSON.stringify(heard)}`));
      }, timeoutMs);
      changed.on('change', onChange);
    });
  const transcripts = () => heard.flatMap((entry) => (entry.event === 'transcript' ? [entry.transcript] : []));
  const finals = () => transcripts().filter((t) => t.isFinal && t.text);
  const failures = () => heard.flatMap((entry) => (entry.event === 'failed' ? [entry.error] : []));
  return { events, heard, until, transcripts, finals, failures };
}
