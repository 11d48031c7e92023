import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/**
 * The E.164 form of a phone number, or null when it is not a valid number.
 * A number written without a country code is read in `defaultRegion`, and rejected when
 * there is none.
 */
export function toE164(input: string, defaultRegion: CountryCode | null): string | null {
  return parsePhone(input, defaultRegion)?.number ?? null;
}

/** toE164's number with its country (none for a number no single country has), from one parse. */
export function parsePhone(input: string, defaultRegion: CountryCode | null): { number: string; country: CountryCode | undefined } | null {
  const text = input.trim();
  if (text === '' || text.length > 32) return null;
  if (!text.startsWith('+') && defaultRegion === null) return null;
  const parsed = parsePhoneNumberFromString(text, defaultRegion ?? undefined);
  return parsed?.isValid() ? { number: parsed.number, country: parsed.country } : null;
}
