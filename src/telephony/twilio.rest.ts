/** Credentials of a Twilio account (or of a Twilio-compatible API at `apiBase`). */
export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  apiBase: string;
}

export interface TwilioAnswer {
  status: number;
  text: string;
  /** The answer parsed as JSON, or null when it is not JSON. */
  body: any;
}

/**
 * Twilio's REST API as the SMS, voice and number adapters use it: resources under
 * `{apiBase}/2010-04-01/Accounts/{AccountSid}`, basic auth, form-encoded bodies, JSON
 * answers (errors as `{code, message, more_info, status}`), redirects not followed. One
 * exchange is bounded in time, its body included; a request that gets no answer throws what
 * fetch throws, for the caller to judge.
 */
export class TwilioRest {
  constructor(
    private readonly settings: TwilioSettings,
    private readonly timeoutMs: number,
  ) {}

  async send(path: string, init: { method: 'GET' | 'POST' | 'DELETE'; form?: URLSearchParams; query?: URLSearchParams }): Promise<TwilioAnswer> {
    const { accountSid, authToken, apiBase } = this.settings;
    const url = `${apiBase}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}${path}${init.query ? `?${init.query}` : ''}`;
    const response = await fetch(url, {
      method: init.method,
      headers: {
        authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
        accept: 'application/json',
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: init.form?.toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the caller has the text
    }
    return { status: response.status, text, body };
  }
}
