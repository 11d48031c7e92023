import { useEffect, useRef, useState } from 'react';
import { HANGUP_REASONS } from '../../api/english';
import { useMutation } from '../../api/hooks';
import { speakerOf } from '../calls/transcript';
import { ErrorNotice } from '../../ui/notice';
import { StartWebCallDocument } from './assistants.operations';

interface Line {
  speaker: string;
  role: string;
  text: string;
  final: boolean;
}

/** The server's own web-call client (README, "Web calls"): loaded when someone talks, not before. */
interface VozgateCallLike extends EventTarget {
  connect(url: string): Promise<void>;
  hangup(): void;
}
const TALK_MODULE = '/talk/talk.js';

/** How the server says a web call ended (the socket's `ended` message). */
interface Ended {
  status: string | null;
  reason: string | null;
  /** Why the engine failed, in the server's words, when it did. */
  detail?: string | null;
  duration: number | null;
}

/** Whether this server can run the assistant's voice engine (Assistant.voice_ready, voice_missing). */
export interface VoiceReadiness {
  voice_ready: boolean;
  voice_missing: string[];
}

/**
 * "Talk": a web call with the assistant in this page, through the microphone, with the live
 * transcript. A server without the engine's keys cannot hold the call: the box says which
 * keys before anyone presses Talk, and, after a call that ends, how it ended.
 */
export function Talk({ assistantId, voice }: { assistantId: number; voice: VoiceReadiness | undefined }) {
  const start = useMutation(StartWebCallDocument);
  const call = useRef<VozgateCallLike | null>(null);
  const [state, setState] = useState<'idle' | 'connecting' | 'live' | 'ended'>('idle');
  const [lines, setLines] = useState<Line[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [ended, setEnded] = useState<Ended | null>(null);
  useEffect(() => () => call.current?.hangup(), []);
  const blocked = voice !== undefined && !voice.voice_ready;

  async function talk() {
    setProblem(null);
    setEnded(null);
    setLines([]);
    setState('connecting');
    const started = await start.run({ input: { assistant_id: assistantId } });
    if (!started) return setState('idle');
    try {
      const { VozgateCall } = (await import(/* @vite-ignore */ TALK_MODULE)) as { VozgateCall: new () => VozgateCallLike };
      const web = new VozgateCall();
      call.current = web;
      web.addEventListener('transcript', (event) => {
        const said = (event as CustomEvent).detail as { speaker: string; text: string; final: boolean };
        const { role, label } = speakerOf(said.speaker);
        const detail = { ...said, speaker: label, role };
        setLines((current) => {
          const last = current[current.length - 1];
          // A turn's words so far replace themselves until it is final.
          if (last && !last.final && last.speaker === detail.speaker) return [...current.slice(0, -1), detail];
          return [...current, detail];
        });
      });
      web.addEventListener('ended', (event) => {
        setEnded(((event as CustomEvent).detail as Ended | null) ?? null);
        setState('ended');
      });
      web.addEventListener('error', (event) => setProblem(String((event as CustomEvent).detail?.message ?? 'The call failed.')));
      await web.connect(started.startWebCall.url);
      setState('live');
    } catch (caught) {
      setProblem(caught instanceof Error ? caught.message : String(caught));
      setState('idle');
    }
  }

  return (
    <section className="panel talk" aria-labelledby="talk-title">
      <h2 id="talk-title">Talk to this assistant</h2>
      <p className="muted">A web call through your microphone, charged as a call; web calls are not recorded.</p>
      {blocked && (
        <p id="talk-blocked" className="notice notice-error" data-voice-missing={voice.voice_missing.join(' ')}>
          Talk needs {voice.voice_missing.join(', ')} on this server: its operator sets {voice.voice_missing.length > 1 ? 'them' : 'it'} and restarts the server.
        </p>
      )}
      {state === 'live' || state === 'connecting' ? (
        <button type="button" className="contrast" onClick={() => (call.current?.hangup(), setState('ended'))} aria-busy={state === 'connecting' ? 'true' : undefined}>
          Hang up
        </button>
      ) : (
        <button type="button" onClick={() => void talk()} disabled={blocked} aria-describedby={blocked ? 'talk-blocked' : undefined}>
          Talk
        </button>
      )}
      <ErrorNotice error={start.error} />
      {ended && state === 'ended' && <EndedNotice ended={ended} />}
      {problem && (
        <p className="notice notice-error" role="alert">
          {problem}
        </p>
      )}
      {lines.length > 0 && (
        <ol className="transcript live" aria-label="Live transcript" aria-live="polite">
          {lines.map((line, index) => (
            <li key={index} className={`turn turn-${line.role}`}>
              <span className="turn-speaker">{line.speaker}</span>
              <p className="turn-text">{line.text}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** How the last call ended: the hang-up reason in words, with the server's sentence when it sent one. */
function EndedNotice({ ended }: { ended: Ended }) {
  const reason = ended.reason ? (HANGUP_REASONS[ended.reason] ?? `Ended: ${ended.reason}.`) : 'The call ended.';
  const failed = ended.reason !== null && /failed|lost/.test(ended.reason);
  return (
    <p className={`notice ${failed ? 'notice-error' : 'notice-ok'}`} role={failed ? 'alert' : 'status'} data-hangup-reason={ended.reason ?? ''}>
      {reason}
      {ended.detail ? ` ${ended.detail}` : ''}
      {ended.duration !== null && ended.duration !== undefined ? ` (${ended.duration} s)` : ''}
    </p>
  );
}
