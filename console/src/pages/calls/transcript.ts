import { SPEAKERS, systemLine } from '../../api/english';

/** The turns of a call as the API answers them (Call.turns). */
export interface ApiTurn {
  speaker: string;
  text: string;
  at_ms?: number | null;
  duration_ms?: number | null;
  latency?: { stt_final_ms?: number | null; llm_first_token_ms?: number | null; tts_first_byte_ms?: number | null; first_audio_ms?: number | null } | null;
  /** The knowledge-base searches the turn was answered with. */
  retrievals?: { mode: string; query: string; chunks: { chunk_id: number; document_id: number; score: number }[] }[];
}

/** One turn of a call's conversation, with where it falls in the recording (seconds). */
export interface TranscriptTurn {
  speaker: string;
  role: 'assistant' | 'customer' | 'system';
  text: string;
  start: number;
  end: number;
  /** The API did not time this turn: its place is shared out from the call's length. */
  estimated: boolean;
  latency: ApiTurn['latency'];
  retrievals: NonNullable<ApiTurn['retrievals']>;
}

const ROLES: Record<string, TranscriptTurn['role']> = {
  assistente: 'assistant',
  assistant: 'assistant',
  ai: 'assistant',
  cliente: 'customer',
  customer: 'customer',
  user: 'customer',
  sistema: 'system',
  system: 'system',
};

/** A speaker as the API or the web call names it (Assistente, customer, ...), in the console's words. */
export function speakerOf(speaker: string): { role: TranscriptTurn['role']; label: string } {
  const role = ROLES[speaker.trim().toLowerCase()] ?? 'system';
  return { role, label: SPEAKERS[role] };
}

/** What a turn says, a system line (the API writes them in Portuguese) in English. */
const spoken = (role: TranscriptTurn['role'], text: string) => (role === 'system' ? systemLine(text) : text);

/**
 * The call's turns placed in its recording. A turn the API timed (`at_ms`) starts there and
 * lasts its `duration_ms`, or, where that is not known, until the next turn starts. Turns of
 * calls recorded before turns had times are placed by estimate: the call's length shared out
 * by how much each turn says. A call with no turns but a transcript (text only) is read from
 * its "Assistente: ..." lines, by estimate too.
 */
export function placeTurns(turns: ApiTurn[], transcript: string, duration: number): TranscriptTurn[] {
  const said = turns.length ? turns.map(fromApi) : parseTranscript(transcript);
  const estimates = shareOut(said, duration);
  const starts = said.map((turn, index) => (typeof turn.at_ms === 'number' ? turn.at_ms / 1000 : estimates[index].start));
  return said.map((turn, index) => {
    if (typeof turn.at_ms !== 'number') return { ...turn, ...estimates[index], estimated: true };
    const start = starts[index];
    const next = starts.slice(index + 1).find((at) => at > start);
    const end = typeof turn.duration_ms === 'number' ? start + turn.duration_ms / 1000 : (next ?? Math.max(duration, start));
    return { speaker: turn.speaker, role: turn.role, text: turn.text, latency: turn.latency, retrievals: turn.retrievals, start, end, estimated: false };
  });
}

/** A seek lands on the nearest audio frame, which may be a little before the time asked for. */
const SEEK_SLACK = 0.05;

/** The turn being heard at `position` seconds of the recording (the later one where two meet), or -1. */
export function turnAt(turns: TranscriptTurn[], position: number): number {
  for (let index = turns.length - 1; index >= 0; index--) {
    if (position >= turns[index].start - SEEK_SLACK && position < turns[index].end) return index;
  }
  return -1;
}

type Said = Omit<TranscriptTurn, 'start' | 'end' | 'estimated'> & Pick<ApiTurn, 'at_ms' | 'duration_ms'>;

function fromApi(turn: ApiTurn): Said {
  const { role, label } = speakerOf(turn.speaker);
  return { speaker: label, role, text: spoken(role, turn.text), at_ms: turn.at_ms, duration_ms: turn.duration_ms, latency: turn.latency ?? null, retrievals: turn.retrievals ?? [] };
}

/** The transcript's text ("Assistente: ...\nCliente: ...") as turns. */
function parseTranscript(transcript: string): Said[] {
  const turns: Said[] = [];
  for (const line of transcript.split('\n')) {
    const match = /^([^:]{1,40}):\s?(.*)$/.exec(line);
    const role = match ? ROLES[match[1].trim().toLowerCase()] : undefined;
    if (match && role) turns.push({ speaker: SPEAKERS[role], role, text: spoken(role, match[2]), latency: null, retrievals: [] });
    else if (turns.length && line.trim()) turns[turns.length - 1].text += `\n${line}`;
    else if (line.trim()) turns.push({ speaker: '', role: 'system', text: systemLine(line), latency: null, retrievals: [] });
  }
  return turns;
}

function shareOut(turns: Said[], duration: number): { start: number; end: number }[] {
  const weight = (text: string) => Math.max(12, text.length);
  const total = turns.reduce((sum, turn) => sum + weight(turn.text), 0) || 1;
  let at = 0;
  return turns.map((turn) => {
    const length = (weight(turn.text) / total) * duration;
    const placed = { start: at, end: at + length };
    at += length;
    return placed;
  });
}
