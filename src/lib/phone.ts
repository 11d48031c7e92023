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
  const text = international(input.trim());
  if (text === '' || text.length > 32) return null;
  if (!text.startsWith('+') && defaultRegion === null) return null;
  const parsed = parsePhoneNumberFromString(text, defaultRegion ?? undefined);
  return parsed?.isValid() ? { number: parsed.number, country: parsed.country } : null;
}

/**
 * `00` is how Europe and Brazil dial abroad (`005511...` for `+5511...`); no country's national
 * numbers begin with it, so it reads as `+` whatever DEFAULT_PHONE_REGION says.
 */
function international(text: string): string {
  return text.replace(/^00(?=[\s().-]*[1-9])/, '+');
}

/**
 * Why `input` is not a number toE164 accepts: `no-region` for a number written without a
 * country code while no DEFAULT_PHONE_REGION is set (the fix is on the server, or a `+`),
 * `invalid` for anything else; null when it is a number.
 */
export function phoneProblem(input: string, defaultRegion: CountryCode | null): 'no-region' | 'invalid' | null {
  if (parsePhone(input, defaultRegion)) return null;
  const text = international(input.trim());
  if (defaultRegion === null && text !== '' && !text.startsWith('+') && /^[\d\s().-]{6,}$/.test(text)) return 'no-region';
  return 'invalid';
}
