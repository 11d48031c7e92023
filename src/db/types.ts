import { Type } from '@mikro-orm/core';
import { formatSpecTimestamp } from '../lib/time';

/**
 * The driver hands back timestamptz columns as text in the session time zone, which the
 * connection pins to UTC (`2026-11-21 04:29:00+00`, or with fractional seconds).
 */
function parseDbTimestamp(value: string | Date): Date {
  if (value instanceof Date) return value;
  const iso = value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00');
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw new TypeError(`unreadable timestamp from the database: ${value}`);
  return date;
}

const WHOLE_SECOND_UTC = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+00$/;

/** A timestamp column that the code and the API see as `YYYY-MM-DD HH:MM:SS` (UTC). */
export class SpecTimestampType extends Type<string | null, string | null> {
  override convertToDatabaseValue(value: string | Date | null): string | null {
    if (value === null || value === undefined) return null;
    if (value instanceof Date) return value.toISOString();
    // Already ISO (written by code that keeps full precision), or the spec's format.
    return value.includes('T') ? value : `${value.replace(' ', 'T')}Z`;
  }

  override convertToJSValue(value: string | Date | null): string | null {
    if (value === null || value === undefined) return null;
    // The common case, a whole-second UTC value (`2026-11-21 04:29:00+00`), is already the spec's text.
    if (typeof value === 'string' && WHOLE_SECOND_UTC.test(value)) return value.slice(0, 19);
    return formatSpecTimestamp(parseDbTimestamp(value));
  }

  override getColumnType(): string {
    return 'timestamptz(0)';
  }

  override compareAsType(): string {
    return 'string';
  }
}

/** A timestamp column that the code and the API see as an ISO 8601 string with milliseconds. */
export class IsoTimestampType extends Type<string | null, string | null> {
  override convertToDatabaseValue(value: string | Date | null): string | null {
    if (value === null || value === undefined) return null;
    return value instanceof Date ? value.toISOString() : value;
  }

  override convertToJSValue(value: string | Date | null): string | null {
    return value === null || value === undefined ? null : parseDbTimestamp(value).toISOString();
  }

  override getColumnType(): string {
    return 'timestamptz(3)';
  }

  override compareAsType(): string {
    return 'string';
  }
}
