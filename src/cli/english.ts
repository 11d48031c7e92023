import { DomainError, FieldMessages, Messages } from '../errors';

/**
 * The operator CLI speaks English; the domain's refusals are the API's Portuguese catalogue
 * (errors.ts). This puts the ones a command can meet in English, field names as the flags they
 * came from, matching each message against its catalogue template, so wording stays in one place.
 */
type Template = (...args: string[]) => string;

const FIELD_IN_ENGLISH: Partial<Record<keyof typeof FieldMessages, Template>> = {
  required: (field) => `${field} is required`,
  integer: (field) => `${field} must be an integer`,
  number: (field) => `${field} must be a number`,
  string: (field) => `${field} must be text`,
  min: (field, min) => `${field} must be at least ${min}`,
  between: (field, min, max) => `${field} must be between ${min} and ${max}`,
  maxLength: (field, max) => `${field} must be at most ${max} characters`,
  lengthBetween: (field, min, max) => `${field} must be ${min} to ${max} characters`,
  oneOf: (field, values) => `${field} must be one of: ${values}`,
  invalidSelection: (field) => `${field} names nothing this account has`,
  url: (field) => `${field} must be an http or https URL`,
  timezone: (field) => `${field} must be an IANA time zone such as America/Sao_Paulo`,
  phone: (field) => `${field} must be a valid phone number in international form (E.164, +5511987654321)`,
  phoneWithoutRegion: (field) => `${field} has no country code and DEFAULT_PHONE_REGION is not set: write it as +5511987654321, or set DEFAULT_PHONE_REGION (BR, say)`,
  assistantNotOutbound: () => 'the assistant does not make outbound calls (its calls_direction must be make)',
  assistantWithoutPhone: () => 'the assistant has no phone number',
  noInboundAssistant: () => 'no inbound assistant (calls_direction receive) answers this number',
  doNotCall: () => "the number is on the account's do-not-call list",
};

const MESSAGE_IN_ENGLISH: Partial<Record<keyof typeof Messages, string>> = {
  simulatorOnly: 'simulated inbound calls exist only with the simulator telephony provider',
  invalidPhoneNumber: 'invalid phone number',
  validationFailed: 'the input was refused',
  campaignNotFound: 'no such campaign in this account',
  assistantNotFound: 'no such assistant in this account',
  insufficientBalance: 'the account balance is too low',
};

/** Flags whose name differs from the field they fill. */
const FLAG_OF_FIELD: Record<string, string> = { assistant_id: 'assistant' };

function flagOf(field: string): string {
  return `--${FLAG_OF_FIELD[field] ?? field.replace(/_/g, '-')}`;
}

/** A regular expression for a catalogue template's output, its arguments captured. */
function patternOf(template: Template, arity: number): RegExp {
  const marks = Array.from({ length: arity }, (_, index) => `\u0000${index}\u0000`);
  // Each mark as a one-item list: it prints as itself, and a template that joins a list of values gets it too.
  const source = (template as (...args: unknown[]) => string)(...marks.map((mark) => [mark])).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${marks.reduce((text, mark) => text.replace(mark, '(.+?)'), source)}$`);
}

const FIELD_PATTERNS = Object.entries(FIELD_IN_ENGLISH).map(([key, english]) => {
  const portuguese = FieldMessages[key as keyof typeof FieldMessages] as string | Template;
  return typeof portuguese === 'string'
    ? { pattern: patternOf(() => portuguese, 0), english: english! }
    : { pattern: patternOf(portuguese, portuguese.length), english: english! };
});

/** One field message in English; the first captured argument, a field name, becomes its flag. */
function fieldInEnglish(field: string, message: string): string {
  for (const { pattern, english } of FIELD_PATTERNS) {
    const match = pattern.exec(message);
    if (!match) continue;
    const [, first, ...rest] = match;
    const text = english(first === undefined ? flagOf(field) : flagOf(first), ...rest);
    return first === undefined ? `${flagOf(field)}: ${text}` : text;
  }
  return `${flagOf(field)}: refused (${message})`;
}

/** A domain refusal as one English line for the operator. */
export function inEnglish(error: DomainError): string {
  const fields = Object.entries(error.errors ?? {}).flatMap(([field, messages]) => messages.map((message) => fieldInEnglish(field, message)));
  if (fields.length > 0) return fields.join('; ');
  const key = (Object.keys(Messages) as (keyof typeof Messages)[]).find((name) => Messages[name] === error.message);
  return (key && MESSAGE_IN_ENGLISH[key]) ?? `refused (${error.code}): ${error.message}`;
}
