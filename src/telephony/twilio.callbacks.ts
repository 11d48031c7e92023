import type { IncomingMessage, ServerResponse } from 'node:http';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, Messages } from '../errors';
import { readBody, sendError } from '../http';
import { enqueue } from '../jobs/queue';
import { toE164 } from '../lib/phone';
import { sipUser, trunkAdmits, type TrunkInbound } from '../modules/accounts/sip-trunk.dial';
import { Assistant } from '../modules/assistants/assistant.entity';
import { ENGINE_VERDICT_SQL } from '../modules/calls/call.answered-by';
import { Call } from '../modules/calls/call.entity';
import { hangupEvent, HANGUPS, isHangupReason, type CallEvent } from '../modules/calls/call.events';
import { applyCallEvent } from '../modules/calls/call.lifecycle';
import { transferEnded } from '../modules/calls/call.transfer-leg';
import type { CallAdmission, LifecycleDeps } from '../modules/calls/call.ports';
import { admitCall, reserveForCalls, startCall } from '../modules/calls/call.service';
import { receiveInbound } from '../modules/conversations/conversation.inbound';
import type { Runtime } from '../runtime';
import { answeredByOf, EMPTY_TWIML, HANGUP_TWIML, mediaStreamUrl, rejectTwiml, streamTwiml, validTwilioSignature } from './twilio.wire';

/** The parts of the runtime Twilio's callbacks use. */
type CallbackDeps = Pick<Runtime, 'config' | 'lifecycle' | 'orm' | 'telephony' | 'secrets' | 'logger'> & {
  /** Admission control of this process (new incoming calls); none: every call is admitted. */
  admission?: CallAdmission;
};

/**
 * What Twilio asks of vozgate: the voice URL of its numbers (an incoming call) and the
 * status, answering-machine and recording callbacks of its calls (design.md, "Telephony:
 * Twilio"). Every request is checked with X-Twilio-Signature before anything is read from it.
 */

type TwilioWebhook = 'voice' | 'status' | 'amd' | 'recording' | 'transfer' | 'transfer-leg';
const WEBHOOKS: Record<string, TwilioWebhook | undefined> = {
  '/telephony/twilio/voice': 'voice',
  '/telephony/twilio/transfer': 'transfer',
  '/telephony/twilio/transfer-leg': 'transfer-leg',
  '/telephony/twilio/status': 'status',
  '/telephony/twilio/amd': 'amd',
  '/telephony/twilio/recording': 'recording',
};
/** Twilio's incoming-message webhook (SMS and WhatsApp), served with SMS_PROVIDER=twilio. */
const MESSAGING_PATH = '/telephony/twilio/messaging';
export const TWILIO_WEBHOOK_PATHS = [...Object.keys(WEBHOOKS), MESSAGING_PATH];

/**
 * A refused callback says why in the log, since Twilio only shows the 403: the URL the
 * signature was checked against (PUBLIC_URL + path + query; Twilio signs the URL it called, so
 * a tunnel or proxy whose address is not PUBLIC_URL fails every callback) and whether the header
 * was missing or wrong. Never the signature itself.
 */
function logRefusedSignature(logger: CallbackDeps['logger'], url: URL, publicUrl: string, present: boolean): void {
  logger.warn(
    present
      ? `twilio: refused a callback (403): X-Twilio-Signature does not match ${url}; Twilio signs the exact URL it called, so if it reached this server at another address (a tunnel, a proxy), set PUBLIC_URL to that address, or check TWILIO_AUTH_TOKEN`
      : `twilio: refused a callback (403): no X-Twilio-Signature header on a request to ${url}; only Twilio's own signed requests are accepted`,
    { checked_url: url.toString(), public_url: publicUrl, twilio_signature: present ? 'wrong' : 'missing' },
  );
}

/**
 * The form parameters of a POST signed with `authToken`; null when it is refused (405, or 403
 * for a missing or wrong signature, logged), the answer then sent.
 */
async function signedParams(runtime: CallbackDeps, authToken: string, req: IncomingMessage, res: ServerResponse, url: URL): Promise<Record<string, string> | null> {
  if (req.method !== 'POST') {
    sendError(res, 'METHOD_NOT_ALLOWED', Messages.methodNotAllowed);
    return null;
  }
  const params = Object.fromEntries(new URLSearchParams((await readBody(req, runtime.config.maxBodyBytes)).toString('utf8')));
  const signature = req.headers['x-twilio-signature'];
  if (!validTwilioSignature(authToken, url.toString(), params, typeof signature === 'string' ? signature : undefined)) {
    logRefusedSignature(runtime.logger, url, runtime.config.publicUrl, typeof signature === 'string' && signature !== '');
    sendError(res, 'FORBIDDEN', Messages.forbidden);
    return null;
  }
  return params;
}

/**
 * POST /telephony/twilio/messaging, the "A message comes in" webhook of the account's numbers
 * (SMS, and WhatsApp senders, whose From and To are `whatsapp:+E164`): signed like the voice
 * callbacks. The message is stored in the sender's conversation with the number's inbound
 * assistant and its answer queued; Twilio gets an empty TwiML Response at once (the reply goes
 * out through the Messages API, so a slow model never makes Twilio time out). A number no
 * inbound assistant answers: the same answer, nothing stored.
 */
async function messagingWebhook(runtime: CallbackDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const twilio = runtime.config.sms.twilio;
  if (!twilio) return sendError(res, 'NOT_FOUND', Messages.routeNotFound);
  const params = await signedParams(runtime, twilio.authToken, req, res, url);
  if (!params) return;
  const message = { sid: params.MessageSid ?? '', from: params.From ?? '', to: params.To ?? '', body: params.Body ?? '', optOutType: params.OptOutType || undefined };
  const outcome = await receiveInbound(runtime.orm.em.fork(), runtime.config, message);
  if (outcome === 'unanswered-number') runtime.logger.info('twilio: a message to a number no inbound assistant answers was not stored', { to: message.to });
  else if (outcome === 'invalid') runtime.logger.warn('twilio: a message without a valid MessageSid, From or To was not stored', { message_sid: message.sid.slice(0, 64) });
  else if (outcome === 'repeated') runtime.logger.info('twilio: a message delivered again was already stored', { message_sid: message.sid });
  res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8', 'content-length': Buffer.byteLength(EMPTY_TWIML) });
  res.end(EMPTY_TWIML);
}

/** Seconds past max_call_duration before vozgate hangs up a call Twilio's TimeLimit did not end. */
const TIME_LIMIT_GRACE_SECONDS = 2;

/**
 * POST /telephony/twilio/{voice,status,amd,recording,transfer}: form-encoded, signed over PUBLIC_URL
 * and the path and query Twilio was given; a missing or wrong signature gets 403 and changes
 * nothing. `voice` and `transfer` (a Dial's action) answer TwiML; the callbacks answer 204. Callbacks of the calls vozgate
 * placed name the call (`?call=`); the others (an incoming call's, set on the number) are
 * matched by their CallSid.
 */
export async function twilioWebhook(runtime: CallbackDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (url.pathname === MESSAGING_PATH) return messagingWebhook(runtime, req, res, url);
  const kind = WEBHOOKS[url.pathname];
  const twilio = runtime.config.telephony.twilio;
  if (!kind || !twilio || runtime.telephony.name !== 'twilio') return sendError(res, 'NOT_FOUND', Messages.routeNotFound);
  const params = await signedParams(runtime, twilio.authToken, req, res, url);
  if (!params) return;
  const em = runtime.orm.em.fork();
  if (kind === 'voice') {
    const twiml = await answerIncoming(em, runtime, params);
    res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8', 'content-length': Buffer.byteLength(twiml) });
    return void res.end(twiml);
  }
  const callId = Number(url.searchParams.get('call'));
  const call =
    Number.isSafeInteger(callId) && callId > 0
      ? await em.findOne(Call, { id: callId, provider: 'twilio' })
      : params.CallSid
        ? await em.findOne(Call, { provider: 'twilio', provider_call_id: params.CallSid })
        : null;
  if (kind === 'transfer') {
    // The transfer's Dial ended (its action): a cold transfer's leg, how and for how long (a
    // warm one's leg reports itself); then the call ends.
    if (call && !call.transfer_call_sid && (!params.CallSid || params.CallSid === call.provider_call_id)) {
      await transferEnded(em, runtime.config, call.id, params.DialCallStatus ?? 'completed', Number(params.DialCallDuration ?? 0) || 0);
    }
    res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8', 'content-length': Buffer.byteLength(HANGUP_TWIML) });
    return void res.end(HANGUP_TWIML);
  }
  if (kind === 'transfer-leg') {
    if (call?.transfer_call_sid && params.CallSid === call.transfer_call_sid) await transferLeg(em, runtime, call, params);
    res.writeHead(204);
    return void res.end();
  }
  if (call) await handleTwilioCallback(em, runtime, kind, call, params);
  res.writeHead(204);
  res.end();
}

/**
 * A verified callback for `call`: links Twilio's CallSid to it, and drives the state
 * machine. Each step runs in its own transaction through `applyCallEvent`, which ignores
 * what is stale, so a repeated or late callback changes nothing twice.
 */
async function handleTwilioCallback(em: EntityManager, runtime: CallbackDeps, kind: Exclude<TwilioWebhook, 'voice' | 'transfer' | 'transfer-leg'>, call: Call, params: Record<string, string>): Promise<void> {
  const deps = runtime.lifecycle;
  const sid = params.CallSid;
  if (sid) {
    if (call.provider_call_id && call.provider_call_id !== sid) return; // another call's callback
    if (!call.provider_call_id) await em.execute('update calls set provider_call_id = ? where id = ? and provider_call_id is null', [sid, call.id]);
  }
  if (kind === 'amd') {
    const answeredBy = answeredByOf(params.AnsweredBy);
    if (!answeredBy) return;
    const [answered] = await em.execute(
      `update calls c set answered_by = ?, updated_at = now() from assistants a
       where c.id = ? and c.answered_at is not null and c.finished_at is null and a.id = c.assistant_id and not ${ENGINE_VERDICT_SQL}
       returning a.end_call_on_voicemail, a.voicemail_message`,
      [answeredBy, call.id],
    );
    // A voicemail the assistant does not talk to: the call is hung up. With a voicemail_message the engine leaves it after the beep.
    if (answeredBy === 'machine' && answered?.end_call_on_voicemail && !answered.voicemail_message) {
      await runtime.telephony.hangup(em, deps, await em.findOneOrFail(Call, { id: call.id }, { refresh: true }), 'voicemail');
    }
    return;
  }
  if (kind === 'recording') {
    if (params.RecordingUrl && (params.RecordingStatus ?? 'completed') === 'completed') {
      await em.execute('update calls set recording_url = ?, updated_at = now() where id = ?', [params.RecordingUrl, call.id]);
    }
    return;
  }
  await applyTwilioStatus(em, deps, call, { status: params.CallStatus, duration: params.CallDuration, answeredBy: params.AnsweredBy, errorCode: params.ErrorCode });
  // The caller gone before the person's leg ended (ringing, briefed, held): nobody is left to join it.
  if (FINAL_TWILIO_STATUSES.has(params.CallStatus)) await runtime.telephony.endTransferLeg?.(em, deps, call.id);
}

/**
 * A warm transfer's leg to the person, as its status callbacks report it: once it completes,
 * how long it lasted (charged like a call); ended before anyone joined, the assistant comes
 * back to the caller.
 */
async function transferLeg(em: EntityManager, runtime: CallbackDeps, call: Call, params: Record<string, string>): Promise<void> {
  const status = params.CallStatus;
  if (status === 'completed') await transferEnded(em, runtime.config, call.id, 'completed', Number(params.CallDuration ?? 0) || 0);
  else if (['busy', 'no-answer', 'failed', 'canceled'].includes(status)) await runtime.telephony.resumeAfterTransfer?.(em, runtime.lifecycle, call, status);
}

/** Twilio's statuses of a call that is over. */
const FINAL_TWILIO_STATUSES = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

/** A call's status as Twilio reports it, in a callback or in its Call resource. */
export interface TwilioReport {
  status: string | undefined;
  /** Seconds, once completed. */
  duration?: string | number | null;
  answeredBy?: unknown;
  errorCode?: string | number | null;
}

/**
 * Drives our state machine from Twilio's status (queued/initiated: nothing to do). A
 * `completed` that arrives before the answer it implies applies that answer first; a call
 * vozgate hung up (`hangup_reason`) ends as that reason says.
 */
export async function applyTwilioStatus(em: EntityManager, deps: LifecycleDeps, call: Call, report: TwilioReport): Promise<void> {
  const apply = (event: CallEvent) => em.fork().transactional((tx) => applyCallEvent(tx, deps, call.id, event));
  const answeredBy = answeredByOf(report.answeredBy) ?? 'unknown';
  const hangup = isHangupReason(call.hangup_reason) ? call.hangup_reason : null;
  switch (report.status) {
    case 'ringing':
      await apply({ type: 'ringing' });
      break;
    case 'in-progress':
      await em.fork().transactional(async (tx) => {
        const answered = await applyCallEvent(tx, deps, call.id, { type: 'answered', answeredBy });
        if (answered) await scheduleTimeLimit(tx, answered);
      });
      break;
    case 'completed': {
      const duration = Number(report.duration ?? 0) || 0;
      await apply({ type: 'answered', answeredBy });
      await apply(hangup ? hangupEvent(hangup, true, duration) : { type: 'ended', status: 'completed', duration, turns: [] });
      break;
    }
    case 'busy':
    case 'no-answer':
    case 'failed':
      await apply({ type: 'not-answered', status: report.status, reason: report.errorCode ? `twilio ${report.errorCode}` : undefined });
      break;
    case 'canceled':
      await apply({ type: 'not-answered', status: 'failed', reason: hangup ? HANGUPS[hangup].unanswered : 'canceled' });
      break;
  }
}

/**
 * max_call_duration, counted from the answer (the call's `answered_at`): Twilio's TimeLimit
 * ends the calls vozgate places; this job ends the others (incoming calls, Twilio-compatible
 * hosts without it).
 */
async function scheduleTimeLimit(
  em: EntityManager,
  call: Pick<Call, 'id' | 'assistant_id' | 'answered_at'>,
  maxCallDuration?: number,
): Promise<void> {
  const [assistant] =
    maxCallDuration !== undefined
      ? [{ max_call_duration: maxCallDuration }]
      : call.assistant_id
        ? await em.execute('select max_call_duration from assistants where id = ?', [call.assistant_id])
        : [];
  if (!assistant || !call.answered_at) return; // the sweeper ends it at its deadline
  const runAt = new Date(Date.parse(call.answered_at) + (assistant.max_call_duration + TIME_LIMIT_GRACE_SECONDS) * 1000);
  await enqueue(em, 'twilio:time-limit', { call_id: call.id }, runAt);
}

/**
 * An incoming call (the number's voice URL): the inbound assistant of the called number
 * answers it, connecting the media stream. A number nobody answers is rejected; an account
 * at its parallel-call limit or without balance gives a busy tone, and so does a process whose
 * measured load is past its bound (admission control: the caller may ring again, or Twilio's
 * fallback URL try another process). Twilio may ask again for the same call (a timeout on its
 * side): it gets the same answer, and no second call.
 */
async function answerIncoming(em: EntityManager, runtime: CallbackDeps, params: Record<string, string>): Promise<string> {
  const { config, secrets, telephony, lifecycle, logger } = runtime;
  const sid = params.CallSid;
  // Over SIP (a SIP domain or BYOC trunk), To is the INVITE's URI: its user part names the
  // number as the carrier writes it: E.164 with or without its +, or an extension.
  const sipTo = sipUser(params.To ?? '');
  const dialled = toE164(sipTo ?? params.To ?? '', config.defaultPhoneRegion);
  const candidates = [dialled, ...(sipTo !== null && /^\d{1,15}$/.test(sipTo) ? [toE164(`+${sipTo}`, null), sipTo] : [])].filter((n): n is string => !!n);
  if (!sid || !candidates.length) return rejectTwiml('rejected');
  const known = () => em.fork().findOne(Call, { provider: 'twilio', provider_call_id: sid });
  const answer = async (call: Call) => {
    const [assistant] = call.assistant_id ? await em.execute('select engine_type from assistants where id = ?', [call.assistant_id]) : [];
    if (call.finished_at || !assistant) return rejectTwiml('rejected');
    return streamTwiml(mediaStreamUrl(config, assistant.engine_type), secrets, call.id);
  };
  const existing = await known();
  if (existing) return answer(existing);

  const [found] = await em.execute(
    `select a.id, a.engine_type, p.number, t.inbound_authorization_type, t.sip_username, t.allowed_inbound_ips, t.sip_domain
     from assistants a join phone_numbers p on p.id = a.phone_number_id left join sip_trunks t on t.phone_number_id = p.id
     where p.number = any(?::text[]) and a.calls_direction = 'receive' and (p.subscription_expires_at is null or p.subscription_expires_at >= current_date)
     order by array_position(?::text[], p.number::text), a.id limit 1`,
    [`{${candidates.join(',')}}`, `{${candidates.join(',')}}`],
  );
  const to: string = found?.number ?? candidates[0];
  if (!found) {
    logger.info('twilio: rejected a call to a number no inbound assistant answers', { to });
    return rejectTwiml('rejected');
  }
  // A trunk's number is answered only for calls its carrier brought over SIP as the trunk says
  // (sip-trunk.dial.ts, trunkAdmits); a number of Twilio's is not reached over SIP here.
  const trunked = found.inbound_authorization_type != null;
  const overSip = sipTo !== null || params.SipCallId !== undefined;
  if (trunked ? !overSip || !trunkAdmits(found as unknown as TrunkInbound, { sourceIp: params.SipSourceIp, username: params.SipUsername, domain: params.SipDomain }) : overSip) {
    logger.info('twilio: rejected a SIP call its trunk does not admit', { to, source_ip: params.SipSourceIp ?? null });
    return rejectTwiml('rejected');
  }
  if (runtime.admission?.refusal('inbound')) {
    logger.info('twilio: turned an incoming call away: this process is overloaded', { to });
    return rejectTwiml('busy');
  }
  const from = toE164(params.From ?? '', config.defaultPhoneRegion) ?? (params.From || 'anonymous').slice(0, 20);
  try {
    const call = await em.fork().transactional(async (tx) => {
      const assistant = await tx.findOneOrFail(Assistant, { id: found.id });
      const reservation = await admitCall(tx, config, assistant.account.id, from);
      const call = await startCall(tx, telephony, config, { assistant, type: 'inbound', from, to, variables: {}, reservation, providerCallId: sid });
      await reserveForCalls(tx, config, assistant.account.id, [call]);
      // Connecting the stream answers the call.
      await applyCallEvent(tx, lifecycle, call.id, { type: 'ringing' });
      const answered = await applyCallEvent(tx, lifecycle, call.id, { type: 'answered', answeredBy: 'human' });
      if (answered) await scheduleTimeLimit(tx, answered, assistant.max_call_duration);
      return call;
    });
    return streamTwiml(mediaStreamUrl(config, found.engine_type), secrets, call.id);
  } catch (error) {
    if (error instanceof DomainError) {
      logger.info('twilio: turned an incoming call away', { to, reason: error.code });
      return rejectTwiml('busy');
    }
    if (error instanceof UniqueConstraintViolationException) {
      const call = await known(); // the same call, asked for twice at once
      if (call) return answer(call);
    }
    throw error;
  }
}
