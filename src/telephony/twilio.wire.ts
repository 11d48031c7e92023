import { createHmac } from 'node:crypto';
import type { Config } from '../config';
import { sameSecret, type SecretBox } from '../lib/secrets';
import type { EngineType } from '../modules/catalog/voice.entity';
import type { AnsweredBy } from '../modules/calls/call.entity';

/** Twilio's wire format, as design.md ("Telephony: Twilio") and Twilio's documentation give it. */

/**
 * X-Twilio-Signature: base64 HMAC-SHA1, keyed by the auth token, of the full URL Twilio
 * requested followed by each POST parameter's name and value, sorted by name.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = url + Object.keys(params).sort().map((name) => name + params[name]).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

export function validTwilioSignature(authToken: string, url: string, params: Record<string, string>, given: string | undefined): boolean {
  return sameSecret(given, twilioSignature(authToken, url, params));
}

/**
 * The token the media stream presents for its call (the engines check it); `resume`: the
 * stream that brings the assistant back after a warm transfer nobody answered, a token of its own.
 */
export function mediaToken(secrets: SecretBox, callId: number, resume = false): string {
  return createHmac('sha256', secrets.derivedKey('twilio-media'))
    .update(resume ? `${callId}:resume` : String(callId))
    .digest('base64url');
}

/** Whether `given` is the token of call `callId` (the media stream's, the engine API's bearer). */
export function validMediaToken(secrets: SecretBox, callId: number, given: string | undefined, resume = false): boolean {
  return Number.isSafeInteger(callId) && callId > 0 && sameSecret(given, mediaToken(secrets, callId, resume));
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The path of the Media Streams socket of the built-in engines (voice/transports/twilio-media.ts serves it). */
export const MEDIA_PATH = '/telephony/twilio/media';

/**
 * Where a call's media streams: the built-in engine's endpoint, or PIPELINE_ENGINE_URL for
 * pipeline assistants when it is set.
 */
export function mediaStreamUrl(config: Pick<Config, 'publicUrl' | 'voice'>, engine: EngineType): string {
  if (engine === 'pipeline' && config.voice.pipelineEngineUrl) return config.voice.pipelineEngineUrl;
  return `${config.publicUrl.replace(/^http/, 'ws')}${MEDIA_PATH}`;
}

/**
 * TwiML that connects the call's audio to `streamUrl`, naming the call and its token;
 * `resume`: the assistant comes back after a warm transfer nobody answered.
 */
export function streamTwiml(streamUrl: string, secrets: SecretBox, callId: number, resume = false): string {
  return (
    `<Response><Connect><Stream url="${escapeXml(streamUrl)}">` +
    `<Parameter name="call_id" value="${callId}"/><Parameter name="token" value="${mediaToken(secrets, callId, resume)}"/>` +
    (resume ? '<Parameter name="resume" value="transfer"/>' : '') +
    `</Stream></Connect></Response>`
  );
}

/**
 * TwiML that hands the call to `to` (a cold transfer), showing `callerId` (the call's own
 * number): when that leg ends, Twilio asks `action` what next.
 */
export function dialTwiml(to: string, callerId: string, action: string): string {
  return `<Response><Dial callerId="${escapeXml(callerId)}" timeout="${TRANSFER_RING_SECONDS}" action="${escapeXml(action)}" method="POST"><Number>${escapeXml(to)}</Number></Dial></Response>`;
}

/** The conference a warm transfer meets in: the call's own. */
export const transferRoom = (callId: number) => `vozgate-transfer-${callId}`;

/**
 * A warm transfer, the caller's side: they wait in the call's conference (Twilio's hold music)
 * until the person joins; `action` is asked what next when it ends.
 */
export function holdTwiml(callId: number, action: string): string {
  return (
    `<Response><Dial action="${escapeXml(action)}" method="POST">` +
    `<Conference startConferenceOnEnter="false" endConferenceOnExit="true" beep="false">${transferRoom(callId)}</Conference>` +
    `</Dial></Response>`
  );
}

/** Twilio's `<Say>` voices by the assistant's language (ISO 639-1); another language: Twilio's default. */
const SAY_LANGUAGES: Record<string, string> = { pt: 'pt-BR', en: 'en-US', es: 'es-ES', de: 'de-DE', fr: 'fr-FR', it: 'it-IT' };

/**
 * A warm transfer, the person's side: once they answer, they hear the briefing (what the call
 * was about), then join the caller in the call's conference.
 */
export function briefingTwiml(callId: number, briefing: string, language: string | null): string {
  const say = SAY_LANGUAGES[language ?? ''];
  return (
    `<Response><Say${say ? ` language="${say}"` : ''}>${escapeXml(briefing)}</Say>` +
    `<Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true" beep="false">${transferRoom(callId)}</Conference></Dial></Response>`
  );
}

/** How long a transfer's number rings before Twilio gives up on it (Dial's `timeout`). */
export const TRANSFER_RING_SECONDS = 30;

/** TwiML that asks nothing more of Twilio (a message is answered later, through the Messages API). */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

/** TwiML that ends the call (after its transferred leg). */
export const HANGUP_TWIML = '<Response><Hangup/></Response>';

/** TwiML that turns a call away: `busy` plays a busy tone, `rejected` a "not in service" one. */
export function rejectTwiml(reason: 'busy' | 'rejected'): string {
  return `<Response><Reject reason="${reason}"/></Response>`;
}

/** Twilio's AnsweredBy, as ours. */
export function answeredByOf(value: unknown): AnsweredBy | null {
  if (typeof value !== 'string' || !value) return null;
  if (value === 'human') return 'human';
  if (value.startsWith('machine') || value === 'fax') return 'machine';
  return 'unknown';
}
