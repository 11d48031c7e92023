import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, Messages } from '../errors';
import { enqueue } from '../jobs/queue';
import type { SecretBox } from '../lib/secrets';
import { Assistant } from '../modules/assistants/assistant.entity';
import { Call, type AnsweredBy } from '../modules/calls/call.entity';
import { applyCallEvent, type CallEvent, type LifecycleDeps } from '../modules/calls/call.lifecycle';
import type { TelephonyProvider } from './provider';
import { TwilioRest, type TwilioSettings } from './twilio.rest';

/**
 * Twilio's Programmable Voice (and Twilio-compatible APIs: TWILIO_API_BASE), by its
 * documented wire format (design.md, "Telephony: Twilio").
 *
 * A call is created in the database in `initiated` with a job, in one transaction; the job
 * records that it is about to ask Twilio (so that a retry after an unclear answer looks the
 * call up before asking again: Twilio has no idempotency key) and then POSTs Calls.json.
 * Twilio reports what happens through signed status callbacks, which drive the same state
 * machine as the simulator (`applyCallEvent`).
 */
export const TWILIO_PLACE_TASK = 'twilio:place';


/** Seconds Twilio lets a phone ring before it reports no-answer. */
const RING_TIMEOUT_SECONDS = 60;
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * X-Twilio-Signature: base64 HMAC-SHA1, keyed by the auth token, of the full URL Twilio
 * requested followed by each POST parameter's name and value, sorted by name.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = url + Object.keys(params).sort().map((name) => name + params[name]).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

export function validTwilioSignature(authToken: string, url: string, params: Record<string, string>, given: string | undefined): boolean {
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const actual = Buffer.from(given ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The token the media stream presents for its call (the engines check it). */
export function mediaToken(secrets: SecretBox, callId: number): string {
  return createHmac('sha256', secrets.derivedKey('twilio-media')).update(String(callId)).digest('base64url');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** TwiML that connects the call's audio to the media endpoint, naming the call and its token. */
export function streamTwiml(publicUrl: string, secrets: SecretBox, callId: number): string {
  const base = publicUrl.replace(/^http/, 'ws');
  return (
    `<Response><Connect><Stream url="${escapeXml(`${base}/telephony/twilio/media`)}">` +
    `<Parameter name="call_id" value="${callId}"/><Parameter name="token" value="${mediaToken(secrets, callId)}"/>` +
    `</Stream></Connect></Response>`
  );
}

/** Twilio's AnsweredBy, as ours. */
export function answeredByOf(value: string | undefined): AnsweredBy | null {
  if (!value) return null;
  if (value === 'human') return 'human';
  if (value.startsWith('machine') || value === 'fax') return 'machine';
  return 'unknown';
}

interface TwilioCall {
  sid?: unknown;
  to?: unknown;
  from?: unknown;
  date_created?: unknown;
}

export class TwilioVoice implements TelephonyProvider {
  readonly name = 'twilio';

  private readonly rest: TwilioRest;

  constructor(
    settings: TwilioSettings,
    /** Read at each call: PUBLIC_URL is the base Twilio calls back. */
    private readonly site: { publicUrl: string },
    private readonly secrets: SecretBox,
  ) {
    this.rest = new TwilioRest(settings, REQUEST_TIMEOUT_MS);
  }

  async startCall(em: EntityManager, call: Call): Promise<void> {
    await enqueue(em, { task: TWILIO_PLACE_TASK, payload: { call_id: call.id }, jobKey: `twilio:place:${call.id}`, maxAttempts: 8 });
  }

  longestCallSeconds(assistant: Pick<Assistant, 'max_call_duration'>): number {
    return RING_TIMEOUT_SECONDS + assistant.max_call_duration;
  }

  /** Every parameter of the Calls API the contract names. */
  private callParams(call: Call, assistant: Assistant): URLSearchParams {
    const callback = (kind: string) => `${this.site.publicUrl}/telephony/twilio/${kind}?call=${call.id}`;
    const params = new URLSearchParams({
      To: call.client_phone_number,
      From: call.assistant_phone_number,
      Twiml: streamTwiml(this.site.publicUrl, this.secrets, call.id),
      StatusCallback: callback('status'),
      StatusCallbackMethod: 'POST',
      MachineDetection: 'Enable',
      AsyncAmd: 'true',
      AsyncAmdStatusCallback: callback('amd'),
      AsyncAmdStatusCallbackMethod: 'POST',
      Timeout: String(RING_TIMEOUT_SECONDS),
      TimeLimit: String(assistant.max_call_duration),
    });
    for (const event of ['initiated', 'ringing', 'answered', 'completed']) params.append('StatusCallbackEvent', event);
    if (assistant.record_call) {
      params.set('Record', 'true');
      params.set('RecordingStatusCallback', callback('recording'));
      params.set('RecordingStatusCallbackMethod', 'POST');
    }
    return params;
  }

  /**
   * The job of TWILIO_PLACE_TASK. A Twilio error (a 4xx with its code) fails the call, with
   * the code and message kept in its events; a 5xx, a timeout or a dropped connection throws,
   * and the job is tried again, first asking Twilio whether the call was made after all.
   */
  async place(em: EntityManager, deps: LifecycleDeps, callId: number): Promise<void> {
    const call = await em.findOne(Call, { id: callId });
    if (!call || call.status !== 'initiated' || call.provider_call_id) return;
    const assistant = call.assistant_id ? await em.findOne(Assistant, { id: call.assistant_id }) : null;
    if (!assistant) {
      await em.fork().transactional((tx) => applyCallEvent(tx, deps, callId, { type: 'not-answered', status: 'failed', reason: 'the assistant was deleted' }));
      return;
    }
    if (call.provider_requested_at) {
      const sid = await this.findPlaced(em, call);
      if (sid) {
        await em.execute('update calls set provider_call_id = ? where id = ? and provider_call_id is null', [sid, callId]);
        return;
      }
    }
    await em.execute('update calls set provider_requested_at = now() where id = ?', [callId]);
    const { status, body, text } = await this.rest.send('/Calls.json', { method: 'POST', form: this.callParams(call, assistant) });
    if ((status === 200 || status === 201) && typeof body?.sid === 'string') {
      const [linked] = await em.execute('update calls set provider_call_id = ? where id = ? and provider_call_id is null returning finished_at', [body.sid, callId]);
      // Hung up while Twilio was being asked: Twilio must not ring a call that is over.
      if (linked?.finished_at) await this.cancel(body.sid, deps, callId);
      return;
    }
    if (status >= 400 && status < 500 && status !== 429) {
      const reason = `twilio ${body?.code ?? status}: ${String(body?.message ?? (text.slice(0, 200) || 'refused'))}`.slice(0, 300);
      const event: CallEvent = { type: 'not-answered', status: 'failed', reason };
      await em.fork().transactional((tx) => applyCallEvent(tx, deps, callId, event));
      deps.logger?.warn('twilio refused a call', { call_id: callId, status, code: body?.code ?? null });
      return;
    }
    throw new Error(`twilio: HTTP ${status} placing call ${callId}; it is asked again before a retry`);
  }

  /**
   * Asks Twilio to end the call (`completed` once answered, `canceled` before): its status
   * callback then finishes it. A call Twilio has not been asked for yet fails at once, and its
   * placing job finds it over.
   */
  async hangup(em: EntityManager, deps: LifecycleDeps, call: Call): Promise<void> {
    if (!call.provider_call_id) {
      await em.fork().transactional((tx) => applyCallEvent(tx, deps, call.id, { type: 'not-answered', status: 'failed', reason: 'hung up through the API before it was placed' }));
      return;
    }
    const form = new URLSearchParams({ Status: call.status === 'in-progress' ? 'completed' : 'canceled' });
    const { status, body, text } = await this.rest.send(`/Calls/${encodeURIComponent(call.provider_call_id)}.json`, { method: 'POST', form });
    if (status >= 400) {
      throw new DomainError('PROVIDER_FAILURE', Messages.hangupFailed, undefined, { error: `twilio ${body?.code ?? status}: ${String(body?.message ?? text.slice(0, 200))}` });
    }
  }

  private async cancel(sid: string, deps: LifecycleDeps, callId: number): Promise<void> {
    const { status } = await this.rest.send(`/Calls/${encodeURIComponent(sid)}.json`, { method: 'POST', form: new URLSearchParams({ Status: 'canceled' }) });
    if (status >= 400) deps.logger?.warn('twilio: could not cancel a call hung up while it was being placed', { call_id: callId, status });
  }

  /** A call Twilio made for ours after a request whose answer was lost: same numbers, made since, not already another call's. */
  private async findPlaced(em: EntityManager, call: Call): Promise<string | null> {
    const since = new Date(Date.parse(call.provider_requested_at!) - 60_000);
    const query = new URLSearchParams({ To: call.client_phone_number, From: call.assistant_phone_number, 'StartTime>': since.toISOString().slice(0, 10), PageSize: '50' });
    const { status, body } = await this.rest.send('/Calls.json', { method: 'GET', query });
    if (status !== 200) throw new Error(`twilio: HTTP ${status} listing calls`);
    const sids = ((body?.calls ?? []) as TwilioCall[])
      .filter((found) => typeof found.sid === 'string' && Date.parse(String(found.date_created)) >= since.getTime())
      .sort((a, b) => Date.parse(String(a.date_created)) - Date.parse(String(b.date_created)))
      .map((found) => found.sid as string);
    if (!sids.length) return null;
    const taken = new Set(
      ((await em.execute('select provider_call_id from calls where provider_call_id = any(?::text[])', [`{${sids.join(',')}}`])) as { provider_call_id: string }[]).map(
        (row) => row.provider_call_id,
      ),
    );
    return sids.find((sid) => !taken.has(sid)) ?? null;
  }
}
