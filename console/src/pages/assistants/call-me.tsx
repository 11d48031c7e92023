import { useState } from 'react';
import { useLocation } from 'wouter';
import { useMutation } from '../../api/hooks';
import { ErrorNotice } from '../../ui/notice';
import { CallMeDocument } from './assistants.operations';

/**
 * "Call me": the assistant phones a number (the operator's own, to hear it) through the
 * account's telephony provider, as makeCall does for any call; the page then follows the call
 * live on its own page.
 */
export function CallMe({ assistantId, outbound }: { assistantId: number; outbound: boolean }) {
  const call = useMutation(CallMeDocument);
  const [number, setNumber] = useState('');
  const [, navigate] = useLocation();
  const numberError = call.error?.fields.phone_number?.[0];

  async function submit(event: any) {
    event.preventDefault();
    const started = await call.run({ input: { assistant_id: assistantId, phone_number: number.trim() } });
    if (started) navigate(`/calls/${started.makeCall.call_id}`);
  }

  return (
    <form className="panel call-me" onSubmit={submit} noValidate aria-labelledby="call-me-title">
      <h2 id="call-me-title">Call my phone</h2>
      <p className="muted">The assistant calls this number from its own, charged as a call; the call’s page then shows it live.</p>
      {!outbound && (
        <p id="call-me-inbound" className="notice">
          This assistant receives calls: set its direction to “Makes calls”, give it a phone number and save, then it can call you.
        </p>
      )}
      {call.error && !numberError && <ErrorNotice error={call.error} />}
      <label htmlFor="call-me-number">Your phone number</label>
      <input
        id="call-me-number"
        name="phone_number"
        type="tel"
        inputMode="tel"
        autoComplete="tel"
        placeholder="+5511987654321"
        value={number}
        onChange={(event: any) => setNumber(event.target.value)}
        aria-invalid={numberError ? 'true' : undefined}
        aria-describedby={numberError ? 'call-me-hint call-me-error' : 'call-me-hint'}
      />
      <small id="call-me-hint">In international form (E.164): +, the country code, then the number.</small>
      {numberError && (
        <small id="call-me-error" className="field-error">
          {numberError}
        </small>
      )}
      <button type="submit" aria-busy={call.running ? 'true' : undefined} disabled={!number.trim()}>
        Call me
      </button>
    </form>
  );
}
