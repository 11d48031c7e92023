import { useEffect, useRef, useState } from 'react';
import { useMutation } from '../../api/hooks';
import { ErrorNotice } from '../../ui/notice';
import { StartWebCallDocument } from './assistants.operations';

interface Line {
  speaker: string;
  text: string;
  final: boolean;
}

/** The server's own web-call client (README, "Web calls"): loaded when someone talks, not before. */
interface VozgateCallLike extends EventTarget {
  connect(url: string): Promise<void>;
  hangup(): void;
}
const TALK_MODULE = '/talk/talk.js';

/** "Talk": a web call with the assistant in this page, through the microphone, with the live transcript. */
export function Talk({ assistantId }: { assistantId: number }) {
  const start = useMutation(StartWebCallDocument);
  const call = useRef<VozgateCallLike | null>(null);
  const [state, setState] = useState<'idle' | 'connecting' | 'live' | 'ended'>('idle');
  const [lines, setLines] = useState<Line[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => () => call.current?.hangup(), []);

  async function talk() {
    setProblem(null);
    setLines([]);
    setState('connecting');
    const started = await start.run({ input: { assistant_id: assistantId } });
    if (!started) return setState('idle');
    try {
      const { VozgateCall } = (await import(/* @vite-ignore */ TALK_MODULE)) as { VozgateCall: new () => VozgateCallLike };
      const web = new VozgateCall();
      call.current = web;
      web.addEventListener('transcript', (event) => {
        const detail = (event as CustomEvent).detail as { speaker: string; text: string; final: boolean };
        setLines((current) => {
          const last = current[current.length - 1];
          // A turn's words so far replace themselves until it is final.
          if (last && !last.final && last.speaker === detail.speaker) return [...current.slice(0, -1), detail];
          return [...current, detail];
        });
      });
      web.addEventListener('ended', () => setState('ended'));
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
      <p className="muted">A web call through your microphone, charged as a call.</p>
      {state === 'live' || state === 'connecting' ? (
        <button type="button" className="contrast" onClick={() => (call.current?.hangup(), setState('ended'))} aria-busy={state === 'connecting' ? 'true' : undefined}>
          Hang up
        </button>
      ) : (
        <button type="button" onClick={() => void talk()}>
          Talk
        </button>
      )}
      <ErrorNotice error={start.error} />
      {problem && (
        <p className="notice notice-error" role="alert">
          {problem}
        </p>
      )}
      {lines.length > 0 && (
        <ol className="transcript live" aria-label="Live transcript" aria-live="polite">
          {lines.map((line, index) => (
            <li key={index} className={`turn turn-${line.speaker}`}>
              <span className="turn-speaker">{line.speaker}</span>
              <p className="turn-text">{line.text}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
