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

/** Trims, requires a non-empty text of at most `max` characters, and returns it (or null). */
export function checkText(errors: FieldErrorCollector, field: string, value: string, max: number): string | null {
  const text = value.trim();
  if (text === '') {
    errors.add(field, FieldMessages.required(field));
    return null;
  }
  if (text.length > max) {
    errors.add(field, FieldMessages.maxLength(field, max));
    return null;
  }
  return text;
}

export function checkDate(errors: FieldErrorCollector, field: string, value: string): Date | null {
  const date = parseDateOnly(value);
  if (!date) errors.add(field, FieldMessages.date(field));
  return date;
}
