// The SMS provider the domain needs (telephony/sms.providers.ts has the simulator's and Twilio's); boot.ts chooses one.

export interface OutgoingSms {
  /** Our id of the message: a provider that can keep it may use it to find the message later. */
  reference: number;
  from: string;
  to: string;
  body: string;
  /** `whatsapp`: `from` and `to` (E.164) are WhatsApp addresses (Twilio's `whatsapp:+E164`); unset: an SMS. */
  channel?: 'sms' | 'whatsapp';
  /** A WhatsApp template (Twilio's Content SID) sent instead of `body`, which is then its text as rendered here. */
  contentSid?: string;
  /** The template's variables by name (`"1"`, `"2"`... or named). */
  contentVariables?: Record<string, string>;
}

/** A WhatsApp message template as the provider has it (Twilio's Content resource). */
export interface ContentTemplate {
  sid: string;
  name: string;
  language: string | null;
  /** Its text, with `{{name}}` where a variable goes; null when it has none (media, cards without a body). */
  body: string | null;
  /** Each variable's sample value, by name. */
  variables: Record<string, string>;
  /** Its WhatsApp approval: `approved`, `pending`, `rejected`, `unsubmitted`..., and its category. */
  status: string;
  category: string | null;
}

/** A message as the provider has it, when asked after the fact. */
export interface ProviderMessage {
  sid: string;
  /** `refused`: the provider has it but did not send it (Twilio's failed, undelivered). */
  state: 'accepted' | 'refused';
  detail: string | null;
}

/**
 * Sends SMS. `send` answers the provider's message id when the provider accepted the
 * message, throws SmsProviderError when it certainly did not, and SmsOutcomeUnknown when
 * nobody can tell (a timeout, a 5xx, an answer cut short): such a send is settled later by
 * `find`, which answers the provider's messages that match (none when it has no such one).
 */
export interface SmsProvider {
  readonly name: string;
  send(message: OutgoingSms): Promise<{ sid: string }>;
  find(query: OutgoingSms & { sid: string | null; createdAfter: Date }): Promise<ProviderMessage[]>;
  /** The WhatsApp templates the provider offers; throws SmsProviderError when it cannot say. */
  templates(): Promise<ContentTemplate[]>;
}

/** The provider refused; `detail` is its own explanation, shown to the client. */
export class SmsProviderError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'SmsProviderError';
  }
}

/** The provider may or may not have accepted the message. */
export class SmsOutcomeUnknown extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'SmsOutcomeUnknown';
  }
}
