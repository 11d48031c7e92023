/** One turn of a call's transcript, with where it falls in the recording. */
export interface TranscriptTurn {
  speaker: string;
  role: 'assistant' | 'customer' | 'system';
  text: string;
  start: number;
  end: number;
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

/**
 * The transcript ("Assistente: ...\nCliente: ...") as turns. The API keeps no time per turn,
 * so each turn's place in the recording is estimated: the call's length shared out by how
 * much each turn says. The page marks these times as approximate.
 */
export function parseTranscript(transcript: string, duration: number): TranscriptTurn[] {
  const turns: Omit<TranscriptTurn, 'start' | 'end'>[] = [];
  for (const line of transcript.split('\n')) {
    const match = /^([^:]{1,40}):\s?(.*)$/.exec(line);
    const role = match ? ROLES[match[1].trim().toLowerCase()] : undefined;
    if (match && role) turns.push({ speaker: match[1].trim(), role, text: match[2] });
    else if (turns.length && line.trim()) turns[turns.length - 1].text += `\n${line}`;
    else if (line.trim()) turns.push({ speaker: '', role: 'system', text: line });
  }
  const weight = (text: string) => Math.max(12, text.length);
  const total = turns.reduce((sum, turn) => sum + weight(turn.text), 0) || 1;
  let at = 0;
  return turns.map((turn) => {
    const length = (weight(turn.text) / total) * duration;
    const placed = { ...turn, start: at, end: at + length };
    at += length;
    return placed;
  });
}
