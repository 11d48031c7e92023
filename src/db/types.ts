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

/**
 * PostgreSQL's text for a UTC timestamp, as the connection's time zone writes it: date, time,
 * up to six digits of fraction, `+00` (a column), or with `T` and `+00:00` (JSON, from
 * `to_json`). Read by hand, it costs a tenth of a `Date` (a list reads several on each of its
 * rows); any other text goes through `Date`.
 */
const UTC_TEXT = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00(?::00)?$/;

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
    // A UTC value (`2026-11-21 04:29:00+00`, or with a fraction) is the spec's text, the fraction cut as a Date's would be.
    const utc = typeof value === 'string' ? UTC_TEXT.exec(value) : null;
    if (utc) return `${utc[1]} ${utc[2]}`;
    return formatSpecTimestamp(parseDbTimestamp(value));
  }

  override getColumnType(): string {
    return 'timestamptz(0)';
  }

  override compareAsType(): string {
    return 'string';
  }
}

const timestamps = new SpecTimestampType();
const SPEC_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** A timestamp as the API writes it (`YYYY-MM-DD HH:MM:SS`, UTC), from the database's text or the entity's. */
export function specTimestampOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' && SPEC_TIMESTAMP.test(value)) return value;
  return timestamps.convertToJSValue(value as string);
}

/** A timestamp column that the code and the API see as an ISO 8601 string with milliseconds. */
export class IsoTimestampType extends Type<string | null, string | null> {
  override convertToDatabaseValue(value: string | Date | null): string | null {
    if (value === null || value === undefined) return null;
    return value instanceof Date ? value.toISOString() : value;
  }

  override convertToJSValue(value: string | Date | null): string | null {
    if (value === null || value === undefined) return null;
    // A UTC value: milliseconds, the rest of the fraction cut, as a Date's would be.
    const utc = typeof value === 'string' ? UTC_TEXT.exec(value) : null;
    if (utc) return `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
    return parseDbTimestamp(value).toISOString();
  }

  override getColumnType(): string {
    return 'timestamptz(3)';
  }

  override compareAsType(): string {
    return 'string';
  }
}
