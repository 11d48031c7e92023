// The provider of numbers the domain needs (telephony/number.providers.ts has the simulator's and Twilio's); boot.ts chooses one.

/** A number the provider offers to buy (Twilio's AvailablePhoneNumber, in its own field names). */
export interface AvailableNumber {
  /** E.164. */
  phone_number: string;
  friendly_name: string;
  locality: string | null;
  region: string | null;
  iso_country: string;
  capabilities: { voice: boolean; sms: boolean; mms: boolean };
}

/** The URLs the provider calls for the number: this service's voice and messaging webhooks. */
export interface NumberWebhooks {
  voiceUrl: string;
  smsUrl: string;
}

/**
 * Searches, buys and releases numbers. `buy` answers the provider's id of the number;
 * NumberRefused when the provider certainly did not buy it (the number is gone, the request
 * is wrong), NumberProviderFailure when it could not be asked or its answer says nothing.
 */
export interface NumberProvider {
  readonly name: string;
  /** Up to a page of numbers of `country` (ISO alpha-2) whose digits contain `contains`. */
  search(country: string, contains: string | null): Promise<AvailableNumber[]>;
  buy(number: string, webhooks: NumberWebhooks): Promise<{ sid: string }>;
  /** Gives the number back; a number the provider no longer has is released already. */
  release(sid: string): Promise<void>;
}

/** The provider refused: `detail` is its own explanation, shown to the client. */
export class NumberRefused extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'NumberRefused';
  }
}

/** The provider could not be reached, failed, or answered what cannot be read. */
export class NumberProviderFailure extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'NumberProviderFailure';
  }
}
