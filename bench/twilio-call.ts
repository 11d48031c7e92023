import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { twilioSignature } from './process';

/** The Twilio account the benchmarks' server is configured with (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, PUBLIC_URL). */
export interface BenchTwilio {
  accountSid: string;
  authToken: string;
  publicUrl: string;
}

/**
 * An incoming call from `from` to `to`, as Twilio brings one: the number's voice URL asked
 * (signed over PUBLIC_URL), then the media stream the TwiML names opened and started with its
 * parameters. Null when vozgate turned the call away busy (admission control).
 */
export async function incomingCall(port: number, twilio: BenchTwilio, from: string, to: string): Promise<{ socket: WebSocket; streamSid: string; callSid: string } | null> {
  const callSid = `CA${randomBytes(16).toString('hex')}`;
  const params = { CallSid: callSid, AccountSid: twilio.accountSid, From: from, To: to, CallStatus: 'ringing', Direction: 'inbound' };
  const res = await fetch(`http://127.0.0.1:${port}/telephony/twilio/voice`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(twilio.authToken, `${twilio.publicUrl}/telephony/twilio/voice`, params) },
    body: new URLSearchParams(params).toString(),
  });
  const twiml = await res.text();
  if (twiml.includes('<Reject reason="busy"/>')) return null;
  const parameters = Object.fromEntries([...twiml.matchAll(/<Parameter name="(\w+)" value="([^"]+)"\/>/g)].map((m) => [m[1], m[2]]));
  if (!parameters.token) throw new Error(`the call was not answered: ${twiml}`);
  const socket = new WebSocket(`ws://127.0.0.1:${port}/telephony/twilio/media`, { perMessageDeflate: false });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const streamSid = `MZ${randomBytes(16).toString('hex')}`;
  socket.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  socket.send(
    JSON.stringify({
      event: 'start',
      sequenceNumber: '1',
      start: { accountSid: twilio.accountSid, streamSid, callSid, tracks: ['inbound'], customParameters: parameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
      streamSid,
    }),
  );
  return { socket, streamSid, callSid };
}
