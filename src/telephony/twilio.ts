import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { DomainError, Messages } from '../errors';
import { enqueue } from '../jobs/queue';
import type { SecretBox } from '../lib/secrets';
import { Assistant } from '../modules/assistants/assistant.entity';
import { trunkSipUri, type TrunkDialing } from '../modules/accounts/sip-trunk.dial';
import { trunkOfNumber } from '../modules/accounts/sip-trunk.service';
import { Call } from '../modules/calls/call.entity';
import { hangupEvent, type CallEvent, type HangupReason } from '../modules/calls/call.events';
import { applyCallEvent } from '../modules/calls/call.lifecycle';
import { transferMade } from '../modules/calls/call.transfer';
import { transferEnded } from '../modules/calls/call.transfer-leg';
import type { LifecycleDeps, TelephonyProvider } from '../modules/calls/call.ports';
import { applyTwilioStatus } from './twilio.callbacks';
import { TwilioRest, type TwilioSettings } from './twilio.rest';
import { briefingTwiml, dialTwiml, holdTwiml, mediaStreamUrl, streamTwiml, TRANSFER_RING_SECONDS } from './twilio.wire';

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


/** Seconds Twilio lets a phone ring before it reports no-answer. */
const RING_TIMEOUT_SECONDS = 60;
const REQUEST_TIMEOUT_MS = 15_000;

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
    private readonly site: Pick<Config, 'publicUrl' | 'voice'>,
    private readonly secrets: SecretBox,
  ) {
    this.rest = new TwilioRest(settings, REQUEST_TIMEOUT_MS);
  }

  async startCall(em: EntityManager, call: Call): Promise<void> {
    if (call.provider_call_id) return; // an incoming call: Twilio has it already
    await enqueue(em, 'twilio:place', { call_id: call.id });
  }

  longestCallSeconds(assistant: Pick<Assistant, 'max_call_duration'>): number {
    return RING_TIMEOUT_SECONDS + assistant.max_call_duration;
  }

  /**
   * Every parameter of the Calls API the contract names. A call from a SIP trunk's number goes
   * to the trunk's carrier: To is the SIP URI the trunk asks for, with its credentials as the
   * Calls API's SipAuthUsername and SipAuthPassword (Twilio answers the carrier's digest challenge).
   */
  private callParams(call: Call, assistant: Assistant, trunk: TrunkDialing | null): URLSearchParams {
    const callback = (kind: string) => `${this.site.publicUrl}/telephony/twilio/${kind}?call=${call.id}`;
    const params = new URLSearchParams({
      To: this.destination(call, trunk),
      From: call.assistant_phone_number,
      Twiml: streamTwiml(mediaStreamUrl(this.site, assistant.engine_type), this.secrets, call.id),
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
    if (trunk) {
      params.set('SipAuthUsername', trunk.sip_username);
      params.set('SipAuthPassword', trunk.sip_password);
    }
    if (assistant.record_call) {
      params.set('Record', 'true');
      params.set('RecordingStatusCallback', callback('recording'));
      params.set('RecordingStatusCallbackMethod', 'POST');
    }
    return params;
  }

  /**
   * The job of `twilio:place`. A Twilio error (a 4xx with its code) fails the call, with
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
    const trunk = await trunkOfNumber({ em, secrets: this.secrets }, call.assistant_phone_number);
    const { status, body, text } = await this.rest.send('/Calls.json', { method: 'POST', form: this.callParams(call, assistant, trunk) });
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
   * Asks Twilio to end the call (`completed` once answered, `canceled` before), keeping why:
   * its status callback then finishes it as the reason says. A call Twilio has not been asked
   * for yet fails at once, and its placing job finds it over.
   */
  async hangup(em: EntityManager, deps: LifecycleDeps, call: Call, reason: HangupReason): Promise<void> {
    if (!call.provider_call_id) {
      await em.fork().transactional((tx) => applyCallEvent(tx, deps, call.id, hangupEvent(reason, false, 0)));
      return;
    }
    await em.execute('update calls set hangup_reason = coalesce(hangup_reason, ?) where id = ?', [reason, call.id]);
    const refused = await this.end(call.provider_call_id, call.status === 'in-progress');
    if (refused) {
      await em.execute('update calls set hangup_reason = null where id = ? and hangup_reason = ?', [call.id, reason]);
      throw new DomainError('PROVIDER_FAILURE', Messages.hangupFailed, undefined, { error: refused });
    }
  }

  /**
   * A transfer (design.md, "Calls that act"). Cold: the call's TwiML becomes a Dial to
   * `transferred_to` (the media stream, and with it the assistant, leaves the call); Twilio asks
   * `/telephony/twilio/transfer` what next when that leg ends. Warm: the caller waits in the
   * call's conference while the person is dialled apart (their leg's status callbacks come to
   * `/telephony/twilio/transfer-leg`), hears `briefing` when they answer and joins; nobody
   * answering brings the assistant back (`resumeAfterTransfer`). The call ends as `transferred`.
   */
  async transfer(em: EntityManager, deps: LifecycleDeps, call: Call, briefing: string | null): Promise<void> {
    if (!call.provider_call_id || !call.transferred_to) throw new Error(`twilio: call ${call.id} has no Twilio call or no transfer number`);
    const [assistant] = call.assistant_id ? await em.execute('select transfer_mode, language from assistants where id = ?', [call.assistant_id]) : [];
    const warm = assistant?.transfer_mode === 'warm';
    await em.execute(`update calls set hangup_reason = coalesce(hangup_reason, 'transferred') where id = ?`, [call.id]);
    const action = `${this.site.publicUrl}/telephony/twilio/transfer?call=${call.id}`;
    const twiml = warm ? holdTwiml(call.id, action) : dialTwiml(call.transferred_to, call.assistant_phone_number, action);
    const refused = await this.update(call.provider_call_id, twiml);
    if (refused) {
      // The call goes on, and may be transferred again (the leg's reservation is released with the call's).
      await em.execute(`update calls set hangup_reason = null, transferred_to = null where id = ? and hangup_reason = 'transferred'`, [call.id]);
      deps.logger?.warn('twilio refused a transfer', { call_id: call.id, error: refused });
      throw new DomainError('PROVIDER_FAILURE', Messages.hangupFailed, undefined, { error: refused });
    }
    await transferMade(em, call.id, warm ? 'warm' : 'cold');
    if (!warm) return;
    const [{ language }] = await em.execute('select iso_2 as language from languages where name = ?', [assistant.language]).then((rows) => (rows.length ? rows : [{ language: null }]));
    const leg = await this.rest
      .send('/Calls.json', {
        method: 'POST',
        form: new URLSearchParams([
          ['To', call.transferred_to],
          ['From', call.assistant_phone_number],
          ['Twiml', briefingTwiml(call.id, briefing ?? '', language)],
          ['Timeout', String(TRANSFER_RING_SECONDS)],
          ['StatusCallback', `${this.site.publicUrl}/telephony/twilio/transfer-leg?call=${call.id}`],
          ['StatusCallbackMethod', 'POST'],
          ['StatusCallbackEvent', 'answered'],
          ['StatusCallbackEvent', 'completed'],
        ]),
      })
      .catch((error: unknown) => ({ status: 0, body: null, text: error instanceof Error ? error.message : String(error) }));
    if ((leg.status === 200 || leg.status === 201) && typeof leg.body?.sid === 'string') {
      const [linked] = await em.execute('update calls set transfer_call_sid = ? where id = ? returning finished_at', [leg.body.sid, call.id]);
      // The caller hung up while Twilio was being asked: the person must not be rung for nobody.
      if (linked?.finished_at) await this.endLeg(leg.body.sid, deps, call.id);
      return;
    }
    deps.logger?.warn('twilio refused a warm transfer’s leg', { call_id: call.id, status: leg.status, code: leg.body?.code ?? null });
    await this.resumeAfterTransfer(em, deps, call, 'failed');
  }

  /**
   * A warm transfer's leg ended before anyone joined (`status`: busy, no-answer, failed,
   * canceled): the transfer is over, and the caller is given back to the assistant, on a stream
   * of its own, which tells them.
   */
  async resumeAfterTransfer(em: EntityManager, deps: LifecycleDeps, call: Call, status: string): Promise<void> {
    await transferEnded(em, deps.config, call.id, status, 0);
    const [resumed] = await em.execute(
      `update calls set hangup_reason = null, transferred_to = null where id = ? and hangup_reason = 'transferred' and finished_at is null and media_resumed_at is null returning id`,
      [call.id],
    );
    if (!resumed || !call.provider_call_id) return;
    const [assistant] = call.assistant_id ? await em.execute('select engine_type from assistants where id = ?', [call.assistant_id]) : [];
    const refused = await this.update(call.provider_call_id, streamTwiml(mediaStreamUrl(this.site, assistant?.engine_type ?? 'pipeline'), this.secrets, call.id, true));
    if (refused) deps.logger?.warn('twilio: could not bring the assistant back after a warm transfer nobody answered', { call_id: call.id, error: refused });
  }

  /** The caller's call is over while its warm transfer's leg has not reported its end: that leg is ended at Twilio (`endLeg`). */
  async endTransferLeg(em: EntityManager, deps: LifecycleDeps, callId: number): Promise<void> {
    const [leg] = await em.execute('select transfer_call_sid from calls where id = ? and finished_at is not null and transfer_call_sid is not null and transfer_status is null', [callId]);
    if (leg) await this.endLeg(leg.transfer_call_sid, deps, callId);
  }

  /**
   * Ends a warm transfer's leg whose caller is gone, as Twilio documents it (its Call resource's
   * `Status`): `canceled` hangs up a call queued or ringing and leaves one in progress as it is;
   * if Twilio answers that the leg is in progress (the person answered, is being briefed or
   * waits in the conference), `completed` hangs it up. The leg's status callback then says how it
   * ended, and its minutes, if it was answered, are charged (`transferEnded`).
   */
  private async endLeg(sid: string, deps: LifecycleDeps, callId: number): Promise<void> {
    const ask = (status: 'canceled' | 'completed') =>
      this.rest
        .send(`/Calls/${encodeURIComponent(sid)}.json`, { method: 'POST', form: new URLSearchParams({ Status: status }) })
        .catch((error: unknown) => ({ status: 0, body: null, text: error instanceof Error ? error.message : String(error) }));
    let answer = await ask('canceled');
    if (answer.status >= 200 && answer.status < 300 && answer.body?.status === 'in-progress') answer = await ask('completed');
    // Refused: most often the leg had ended meanwhile (its report on its way). No answer: its ring timeout still ends it.
    if (answer.status >= 400) deps.logger?.info('twilio: a warm transfer’s leg whose caller hung up was not ended: Twilio refused', { call_id: callId, status: answer.status, code: answer.body?.code ?? null });
    else if (answer.status < 200) deps.logger?.warn('twilio: could not end a warm transfer’s leg whose caller hung up', { call_id: callId, error: answer.text.slice(0, 200) });
  }

  /** Gives a call new TwiML; answers Twilio's refusal, or null. */
  private async update(sid: string, twiml: string): Promise<string | null> {
    const { status, body, text } = await this.rest.send(`/Calls/${encodeURIComponent(sid)}.json`, { method: 'POST', form: new URLSearchParams({ Twiml: twiml }) });
    return status >= 400 ? `twilio ${body?.code ?? status}: ${String(body?.message ?? text.slice(0, 200))}` : null;
  }

  /** The job of `twilio:time-limit`: a call still answered at max_call_duration is hung up. */
  async enforceTimeLimit(em: EntityManager, deps: LifecycleDeps, callId: number): Promise<void> {
    const call = await em.findOne(Call, { id: callId });
    if (call?.status === 'in-progress') await this.hangup(em, deps, call, 'time-limit');
  }

  /**
   * The sweeper's question for a call past its deadline: Twilio's Call resource says how it
   * ended (applied as its callback would have been), or that it still runs (then it is ended
   * there, and the sweeper ends it here). A call Twilio never had is the sweeper's to end.
   */
  async reconcile(em: EntityManager, deps: LifecycleDeps, call: Call): Promise<boolean> {
    let sid = call.provider_call_id;
    if (!sid && call.provider_requested_at) {
      sid = await this.findPlaced(em, call);
      if (sid) await em.execute('update calls set provider_call_id = ? where id = ? and provider_call_id is null', [sid, call.id]);
    }
    if (!sid) return true;
    const { status, body } = await this.rest.send(`/Calls/${encodeURIComponent(sid)}.json`, { method: 'GET' });
    if (status === 404) return true;
    if (status !== 200) return false;
    const state = String(body?.status);
    if (['queued', 'initiated', 'ringing', 'in-progress'].includes(state)) {
      await em.execute(`update calls set hangup_reason = coalesce(hangup_reason, 'time-limit') where id = ?`, [call.id]);
      return (await this.end(sid, state === 'in-progress')) === null;
    }
    await applyTwilioStatus(em, deps, call, { status: state, duration: body?.duration as string | undefined, answeredBy: body?.answered_by });
    await this.endTransferLeg(em, deps, call.id);
    return true;
  }

  /** Asks Twilio to end a call; answers Twilio's refusal, or null. */
  private async end(sid: string, answered: boolean): Promise<string | null> {
    const form = new URLSearchParams({ Status: answered ? 'completed' : 'canceled' });
    const { status, body, text } = await this.rest.send(`/Calls/${encodeURIComponent(sid)}.json`, { method: 'POST', form });
    return status >= 400 ? `twilio ${body?.code ?? status}: ${String(body?.message ?? text.slice(0, 200))}` : null;
  }

  private async cancel(sid: string, deps: LifecycleDeps, callId: number): Promise<void> {
    const refused = await this.end(sid, false);
    if (refused) deps.logger?.warn('twilio: could not cancel a call hung up while it was being placed', { call_id: callId, error: refused });
  }

  /** A call Twilio made for ours after a request whose answer was lost: same numbers, made since, not already another call's. */
  /** Where Twilio is asked to call: the number, or through a trunk the SIP URI its carrier wants. */
  private destination(call: Call, trunk: TrunkDialing | null): string {
    return trunk ? trunkSipUri(trunk, call.client_phone_number) : call.client_phone_number;
  }

  private async findPlaced(em: EntityManager, call: Call): Promise<string | null> {
    const trunk = await trunkOfNumber({ em, secrets: this.secrets }, call.assistant_phone_number);
    const since = new Date(Date.parse(call.provider_requested_at!) - 60_000);
    const query = new URLSearchParams({ To: this.destination(call, trunk), From: call.assistant_phone_number, 'StartTime>': since.toISOString().slice(0, 10), PageSize: '50' });
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
