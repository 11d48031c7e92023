/** Display of the API's values: money in the account's currency units, UTC times as local. */
const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
const count = new Intl.NumberFormat('en-US');

export const formatMoney = (value: number | null | undefined) => (value === null || value === undefined ? '—' : money.format(value));
export const formatCount = (value: number | null | undefined) => (value === null || value === undefined ? '—' : count.format(value));

/** The API's "YYYY-MM-DD HH:MM:SS" (UTC) or ISO 8601, as the browser's local date and time. */
export function formatTime(value: string | null | undefined): string {
  if (!value) return '—';
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const whole = Math.max(0, Math.round(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

/** An ISO 8601 instant as the browser's local time to the second (status changes come seconds apart). */
export function formatClock(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
