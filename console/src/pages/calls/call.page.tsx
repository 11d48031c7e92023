import { useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'wouter';
import { useBatched, useMutation, useQuery, useSubscription } from '../../api/hooks';
import type { ConsoleCallQuery } from '../../gql/graphql';
import { formatClock, formatCount, formatDuration, formatMoney, formatTime } from '../../ui/format';
import { ErrorNotice, Loading } from '../../ui/notice';
import { Status } from '../../ui/status';
import { CallDocument, CallLiveDocument, HangupCallDocument, RedeliverDocument } from './calls.operations';
import { HANGUP_REASONS } from '../../api/english';
import { placeTurns, turnAt, type TranscriptTurn } from './transcript';

const IN_FLIGHT = ['initiated', 'ringing', 'in-progress'];

/** A call: status live with its status changes, the recording with its timed transcript, what was extracted, costs, latency and webhook deliveries. */
export function CallPage() {
  const id = Number(useParams<{ id: string }>().id);
  const call = useQuery(CallDocument, { id });
  // Each status change (the end above all) brings the transcript, costs and recording: ask again.
  const refresh = useBatched<unknown>(() => void call.refetch(), 300);
  useSubscription(CallLiveDocument, { id }, (data) => {
    if (call.data && data.callUpdated.status !== call.data.call.status) refresh(null);
  });
  const hangup = useMutation(HangupCallDocument);
  if (!call.data) {
    return (
      <>
        <ErrorNotice error={call.error} />
        {!call.error && <Loading what="the call" />}
      </>
    );
  }
  const c = call.data.call;
  return (
    <>
      <header className="page-head">
        <div>
          <p className="crumbs">
            <Link href="/calls">Calls</Link>
            {c.campaign_id && (
              <>
                {' / '}
                <Link href={`/campaigns/${c.campaign_id}`}>{c.campaign_name}</Link>
              </>
            )}
          </p>
          <h1>
            Call #{c.id} <Status value={c.status} />
          </h1>
          <p className="muted">
            {c.type} · {c.client_phone_number} ↔ {c.assistant_name} ({c.assistant_phone_number || 'web'}) · {formatTime(c.created_at)}
          </p>
        </div>
        {IN_FLIGHT.includes(c.status) && (
          <div className="head-actions">
            <button type="button" className="secondary" aria-busy={hangup.running ? 'true' : undefined} onClick={() => void hangup.run({ id })}>
              Hang up
            </button>
            <ErrorNotice error={hangup.error} />
          </div>
        )}
      </header>
      <section className="cards" aria-label="Summary">
        <Fact label="Duration" value={formatDuration(c.duration)} />
        <Fact label="Total cost" value={formatMoney(c.total_cost)} detail={`carrier ${formatMoney(c.carrier_cost)} + platform ${formatMoney(c.total_cost - c.carrier_cost)}`} />
        <Fact label="Answered by" value={c.answered_by ?? '—'} detail={c.hangup_reason ? [HANGUP_REASONS[c.hangup_reason] ?? `Ended: ${c.hangup_reason}.`, c.hangup_detail].filter(Boolean).join(' ') : undefined} />
        {c.transferred_to && (
          <Fact
            label="Transferred to"
            value={c.transferred_to}
            detail={c.transfer_status ? `That leg: ${c.transfer_status}, ${formatDuration(c.transfer_duration ?? 0)}.` : 'That leg has not ended yet.'}
          />
        )}
        <Fact
          label="Latency (voice to voice)"
          value={c.latency ? `${c.latency.p50_ms} ms` : '—'}
          detail={c.latency ? `p50 · p95 ${c.latency.p95_ms} ms over ${c.latency.turns} answers` : 'Measured on pipeline calls.'}
        />
      </section>
      <div className="columns">
        <Conversation call={c} />
        <aside className="side">
          <Events call={c} />
          <section className="panel" aria-labelledby="extracted-title">
            <h2 id="extracted-title">Extracted variables</h2>
            <KeyValues record={c.variables} empty="Nothing extracted." />
          </section>
          <section className="panel" aria-labelledby="evaluation-title">
            <h2 id="evaluation-title">Evaluation</h2>
            <KeyValues record={c.evaluation ?? {}} empty="No evaluation (post-call evaluation is off)." />
          </section>
          <section className="panel" aria-labelledby="usage-title">
            <h2 id="usage-title">Usage</h2>
            {c.usage ? (
              <dl className="kv">
                <dt>LLM input tokens</dt>
                <dd>{formatCount(c.usage.llm_input_tokens)}</dd>
                <dt>LLM output tokens</dt>
                <dd>{formatCount(c.usage.llm_output_tokens)}</dd>
                <dt>Speech-to-text</dt>
                <dd>{c.usage.stt_seconds.toFixed(1)} s</dd>
                <dt>Text-to-speech</dt>
                <dd>{formatCount(c.usage.tts_characters)} characters</dd>
              </dl>
            ) : (
              <p className="muted">Reported by the pipeline engine’s vendors only.</p>
            )}
          </section>
        </aside>
      </div>
      <Deliveries call={c} onRedelivered={() => void call.refetch()} />
    </>
  );
}

function Fact({ label, value, detail }: { label: string; value: string; detail?: string }) {
  return (
    <article className="card">
      <h2 className="card-label">{label}</h2>
      <p className="card-value">{value}</p>
      {detail && <p className="muted">{detail}</p>}
    </article>
  );
}

function KeyValues({ record, empty }: { record: Record<string, unknown>; empty: string }) {
  const entries = Object.entries(record);
  if (!entries.length) return <p className="muted">{empty}</p>;
  return (
    <dl className="kv">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key.replace(/_/g, ' ')}</dt>
          <dd>{typeof value === 'object' ? JSON.stringify(value) : String(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

type Call = ConsoleCallQuery['call'];

/** The recording and the transcript: the turn being heard is highlighted, and a turn's time plays the recording from there. */
function Conversation({ call }: { call: Call }) {
  const audio = useRef<HTMLAudioElement | null>(null);
  const [position, setPosition] = useState(-1);
  const turns = useMemo(() => placeTurns(call.turns, call.transcript, call.duration), [call.turns, call.transcript, call.duration]);
  const playing = turnAt(turns, position);
  const follow = (event: any) => setPosition(event.currentTarget.currentTime);
  return (
    <section className="panel conversation" aria-labelledby="conversation-title">
      <h2 id="conversation-title">Conversation</h2>
      {call.recording_url ? (
        <audio ref={audio} controls preload="metadata" src={call.recording_url} aria-label="Recording" onTimeUpdate={follow} />
      ) : (
        <p className="muted" data-no-recording>
          {call.type === 'web'
            ? 'No recording: web calls (Talk, /talk) are not recorded.'
            : IN_FLIGHT.includes(call.status)
              ? 'The recording comes when the call ends.'
              : 'No recording (the assistant does not record calls).'}
        </p>
      )}
      {turns.length === 0 ? (
        <p className="muted">{IN_FLIGHT.includes(call.status) ? 'The transcript comes when the call ends.' : 'No transcript.'}</p>
      ) : (
        <>
          <ol className="transcript" aria-label="Transcript">
            {turns.map((turn, index) => (
              <li key={index} className={`turn turn-${turn.role}${index === playing ? ' playing' : ''}`} aria-current={index === playing ? 'true' : undefined}>
                <button
                  type="button"
                  className="turn-time link"
                  disabled={!call.recording_url}
                  aria-label={`Play from ${turn.estimated ? 'about ' : ''}${formatDuration(turn.start)}`}
                  onClick={() => {
                    if (!audio.current) return;
                    audio.current.currentTime = turn.start;
                    // Highlighted at once, not when the seek completes.
                    setPosition(turn.start);
                    // A pause before playback starts rejects play(): nothing to report.
                    void audio.current.play().catch(() => undefined);
                  }}
                >
                  {turn.estimated ? '≈' : ''}
                  {formatDuration(turn.start)}
                </button>
                <span className="turn-speaker">{turn.speaker || 'Note'}</span>
                <div>
                  <p className="turn-text">{turn.text}</p>
                  {turn.latency?.first_audio_ms != null && <Latency latency={turn.latency} />}
                  {turn.retrievals.map((retrieval, at) => (
                    <Retrieval key={at} retrieval={retrieval} />
                  ))}
                </div>
              </li>
            ))}
          </ol>
          {turns.some((turn) => turn.estimated) && <p className="muted small">Times marked ≈ are estimated from the transcript: this call was recorded before the API timed each turn.</p>}
        </>
      )}
    </section>
  );
}

/** How long an answer took, voice to voice, and its steps (from the caller's end of speech). */
function Latency({ latency }: { latency: NonNullable<TranscriptTurn['latency']> }) {
  const steps = [
    ['speech-to-text', latency.stt_final_ms],
    ['first token', latency.llm_first_token_ms],
    ['first audio from TTS', latency.tts_first_byte_ms],
  ].filter((step): step is [string, number] => typeof step[1] === 'number');
  return (
    <p className="turn-latency" data-latency={latency.first_audio_ms ?? undefined}>
      Answered in <strong>{formatCount(latency.first_audio_ms)} ms</strong>
      {steps.length > 0 && <span className="muted"> · {steps.map(([name, ms]) => `${name} ${formatCount(ms)} ms`).join(' · ')}</span>}
    </p>
  );
}

/** A knowledge-base search the answer was written with: what was asked, and the chunks found with their scores. */
function Retrieval({ retrieval }: { retrieval: TranscriptTurn['retrievals'][number] }) {
  const how = retrieval.mode === 'prompt' ? 'Knowledge base, searched for the caller’s words' : 'Knowledge base, searched by the model';
  const found = retrieval.chunks.length
    ? retrieval.chunks.map((chunk) => `chunk ${chunk.chunk_id} of document ${chunk.document_id} (${chunk.score.toPrecision(2)})`).join(', ')
    : 'nothing found';
  return (
    <p className="turn-retrieval" data-retrieval={retrieval.mode}>
      {how}: “{retrieval.query}” <span className="muted">→ {found}</span>
    </p>
  );
}

/**
 * What happened to the call, oldest first, each with how long after the start: its status
 * changes as the state machine recorded them, the engine's verdict on who answered, and each
 * voice vendor retried or replaced.
 */
function Events({ call }: { call: Call }) {
  const first = call.events.length ? Date.parse(call.events[0].at) : 0;
  return (
    <section className="panel" aria-labelledby="events-title">
      <h2 id="events-title">Events</h2>
      {call.events.length === 0 ? (
        <p className="muted">None recorded.</p>
      ) : (
        <ol className="events" aria-label="Events">
          {call.events.map((event, index) => (
            <li key={index} data-event={event.status}>
              <Status value={event.status} />
              <time dateTime={event.at}>
                {formatClock(event.at)}
                {index > 0 && <span className="muted"> +{((Date.parse(event.at) - first) / 1000).toFixed(1)} s</span>}
              </time>
              {event.detail && <span className="event-detail muted">{describeDetail(event.status, event.detail)}</span>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The part of the pipeline a vendor event names, as an operator says it. */
const PARTS: Record<string, string> = { stt: 'Speech-to-text', llm: 'Language model', tts: 'Text-to-speech' };

/**
 * An event's detail in words: a vendor retried ("Text-to-speech elevenlabs retried: HTTP 429")
 * or replaced ("Text-to-speech: elevenlabs → cartesia: ..."); any other as its pairs,
 * `{event: "not-answered", reason: "..."}` as "not-answered · the network refused the number".
 */
function describeDetail(status: string, detail: Record<string, unknown>): string {
  const part = PARTS[String(detail.part)] ?? String(detail.part);
  if (status === 'vendor_retried') return `${part} ${String(detail.vendor)} retried: ${String(detail.reason)}`;
  if (status === 'vendor_switched') return `${part}: ${String(detail.from)} → ${String(detail.to)}: ${String(detail.reason)}`;
  return Object.entries(detail)
    .map(([key, value]) => (key === 'event' || key === 'reason' ? String(value) : `${key.replace(/_/g, ' ')}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`))
    .join(' · ');
}

function Deliveries({ call, onRedelivered }: { call: Call; onRedelivered: () => void }) {
  const redeliver = useMutation(RedeliverDocument);
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Webhook deliveries</h2>
      <ErrorNotice error={redeliver.error} />
      {call.webhook_deliveries.length === 0 ? (
        <p className="empty">This call’s result was not sent to a webhook (the assistant has none, or it is off).</p>
      ) : (
        <DeliveryTable deliveries={call.webhook_deliveries} onRedeliver={async (id) => (await redeliver.run({ delivery_id: id })) !== null && onRedelivered()} />
      )}
    </section>
  );
}

export interface DeliveryRow {
  id: string;
  status: string;
  event_type?: string | null;
  created_at: string;
  next_attempt_at?: string | null;
  attempts: { attempt: number; status_code?: number | null; error?: string | null; latency_ms: number; created_at: string }[];
}

export function DeliveryTable({ deliveries, onRedeliver }: { deliveries: DeliveryRow[]; onRedeliver: (id: string) => void }) {
  return (
    <div className="table-wrap">
      <table className="striped">
        <thead>
          <tr>
            <th scope="col">Sent</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Next retry</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id}>
              <td>{formatTime(delivery.created_at)}</td>
              <td>{delivery.event_type ?? 'call result'}</td>
              <td>
                <Status value={delivery.status} />
              </td>
              <td>
                {delivery.attempts.length === 0
                  ? '—'
                  : delivery.attempts.map((attempt) => (
                      <div key={attempt.attempt} className="attempt">
                        #{attempt.attempt} {attempt.status_code ?? attempt.error ?? 'no answer'} · {attempt.latency_ms} ms
                      </div>
                    ))}
              </td>
              <td>{delivery.next_attempt_at ? formatTime(delivery.next_attempt_at) : '—'}</td>
              <td>
                <button type="button" className="secondary outline small" onClick={() => onRedeliver(delivery.id)}>
                  Redeliver
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
