import { FieldErrorCollector, FieldMessages } from '../errors';
import { parseDateOnly } from './time';

/**
 * Field checks shared by the services. Each adds its message to the collector and says
 * whether the value passed; types are already guaranteed by the GraphQL schema.
 */

export function checkPositiveInt(errors: FieldErrorCollector, field: string, value: number): boolean {
  if (!Number.isInteger(value)) {
    errors.add(field, FieldMessages.integer(field));
    return false;
  }
  if (value < 1) {
    errors.add(field, FieldMessages.min(field, 1));
    return false;
  }
  return true;
}

export function checkIntRange(errors: FieldErrorCollector, field: string, value: number, min: number, max: number): boolean {
  if (!Number.isInteger(value)) {
    errors.add(field, FieldMessages.integer(field));
    return false;
  }
  if (value < min || value > max) {
    errors.add(field, FieldMessages.between(field, min, max));
    return false;
  }
  return true;
}

export function checkOneOf<T extends string>(
  errors: FieldErrorCollector,
  field: string,
  value: string,
  allowed: readonly T[],
): value is T {
  if ((allowed as readonly string[]).includes(value)) return true;
  errors.add(field, FieldMessages.oneOf(field, allowed));
  return false;
}

export function checkDate(errors: FieldErrorCollector, field: string, value: string): Date | null {
  const date = parseDateOnly(value);
  if (!date) errors.add(field, FieldMessages.date(field));
  return date;
}

export function checkNumberRange(errors: FieldErrorCollector, field: string, value: number, min: number, max: number): boolean {
  if (!Number.isFinite(value)) {
    errors.add(field, FieldMessages.number(field));
    return false;
  }
  if (value < min || value > max) {
    errors.add(field, FieldMessages.between(field, min, max));
    return false;
  }
  return true;
}

/** An absolute http(s) URL of at most 2048 characters, returned trimmed (or null). */
export function checkHttpUrl(errors: FieldErrorCollector, field: string, value: string): string | null {
  const text = value.trim();
  if (text.length > 2048) {
    errors.add(field, FieldMessages.maxLength(field, 2048));
    return null;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    errors.add(field, FieldMessages.url(field));
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    errors.add(field, FieldMessages.url(field));
    return null;
  }
  return text;
}

/**
 * A text whose length (after trimming) is within bounds, returned trimmed (or null). With
 * `min` 1 the text is simply required, and only its maximum is worth naming.
 */
export function checkLength(errors: FieldErrorCollector, field: string, value: string, min: number, max: number): string | null {
  const text = value.trim();
  if (text.length >= min && text.length <= max) return text;
  if (min <= 1) errors.add(field, text.length === 0 ? FieldMessages.required(field) : FieldMessages.maxLength(field, max));
  else errors.add(field, FieldMessages.lengthBetween(field, min, max));
  return null;
}
