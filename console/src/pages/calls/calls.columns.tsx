import { useState } from 'react';

/** The calls list's columns that may be hidden, in their order; Call, When, Customer, Assistant and Status always show. */
export const CALL_COLUMNS = [
  { key: 'campaign', label: 'Campaign' },
  { key: 'type', label: 'Type' },
  { key: 'answered_by', label: 'Answered by' },
  { key: 'hangup_reason', label: 'Ended by' },
  { key: 'sentiment', label: 'Sentiment' },
  { key: 'summary', label: 'Summary' },
  { key: 'duration', label: 'Duration' },
  { key: 'cost', label: 'Cost' },
] as const;

const ALL = CALL_COLUMNS.map((column) => column.key as string);
const STORAGE_KEY = 'vozgate.console.calls.columns';

/** What `ended` and `completed` mean (README "Calls", design.md's outcomes), for the Status column's tooltip. */
export const STATUS_MEANINGS =
  'completed: answered, and the call ended on its own, as calls normally end. ended: vozgate ended it — hung up through the API or the console, at the assistant’s max_call_duration, or after its silence limit. ended_by_customer and ended_by_assistant say which side hung up; failed, busy and no-answer were never answered.';

function stored(): string[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    // A list from an older console may name columns gone since: only known ones are kept.
    if (Array.isArray(value)) return ALL.filter((key) => value.includes(key));
  } catch {
    // Unreadable (private mode, a hand-edited value): the defaults.
  }
  return ALL;
}

/** The shown columns, remembered in this browser. */
export function useCallColumns(): [string[], (columns: string[]) => void] {
  const [columns, setColumns] = useState<string[]>(stored);
  const change = (next: string[]) => {
    setColumns(next);
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    } catch {
      // Storage refused: the choice holds for this page only.
    }
  };
  return [columns, change];
}

export function CallColumnsPicker({ columns, onChange }: { columns: string[]; onChange: (columns: string[]) => void }) {
  return (
    <details className="columns-picker">
      <summary>Columns</summary>
      <fieldset>
        <legend className="visually-hidden">Columns shown</legend>
        {CALL_COLUMNS.map((column) => (
          <label key={column.key}>
            <input
              type="checkbox"
              name={`column-${column.key}`}
              checked={columns.includes(column.key)}
              onChange={(event: any) => onChange(ALL.filter((key) => (key === column.key ? event.target.checked : columns.includes(key))))}
            />
            {column.label}
          </label>
        ))}
      </fieldset>
    </details>
  );
}

/** The post-call evaluation's sentiment, and its outcome and score as the summary; dashes without one. */
export function evaluationOf(evaluation: Record<string, unknown> | null | undefined): { sentiment: string; summary: string } {
  const sentiment = typeof evaluation?.sentiment === 'string' ? evaluation.sentiment : '—';
  const outcome = typeof evaluation?.outcome === 'string' ? evaluation.outcome.replace(/_/g, ' ') : null;
  const score = typeof evaluation?.score === 'number' ? `${evaluation.score}/10` : null;
  return { sentiment, summary: [outcome, score].filter(Boolean).join(' · ') || '—' };
}
