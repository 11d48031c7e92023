/** Timestamps as the spec writes them for leads, calls and SMS: `YYYY-MM-DD HH:MM:SS`, UTC. */
export function formatSpecTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** SQL for a timestamptz column as the spec writes it (`YYYY-MM-DD HH:MM:SS`, UTC), for answers PostgreSQL builds. */
export function specTimestampSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS')`;
}

/** Now, truncated to whole seconds, in the spec's format. */
export function nowSpecTimestamp(): string {
  return formatSpecTimestamp(new Date());
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses a strict `YYYY-MM-DD` calendar date (UTC midnight), or null when it is not one. */
export function parseDateOnly(text: string): Date | null {
  const match = DATE_ONLY.exec(text);
  if (!match) return null;
  const [, y, m, d] = match.map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d ? date : null;
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}
