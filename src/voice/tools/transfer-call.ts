import type { TransferRefusal } from '../../modules/calls/call.transfer';
import type { BuiltInFunction } from './function';

/** What the model is told of a refusal: it tells the caller, and the call goes on. */
const REFUSALS: Record<TransferRefusal | 'unknown-number', string> = {
  'unknown-number': 'that number is not one of the transfer destinations',
  'not-in-progress': 'the call is not in progress',
  'already-transferred': 'the call is already being transferred',
  'already-tried': 'a transfer was already tried on this call and nobody answered; the call cannot be transferred again: offer to help or to take a message',
  'do-not-call': 'that number is on the account’s do-not-call list',
  'insufficient-balance': 'the account’s balance does not cover the transfer',
};

/** The destination the model named, if it is one of the assistant's (as written, or as its digits). */
function destination(args: string, numbers: readonly { number: string }[]): string | null {
  let given: unknown;
  try {
    given = (JSON.parse(args) as { number?: unknown } | null)?.number;
  } catch {
    return numbers.length === 1 ? numbers[0].number : null;
  }
  if (typeof given !== 'string') return numbers.length === 1 ? numbers[0].number : null;
  const digits = given.replace(/\D/g, '');
  return numbers.find((candidate) => candidate.number === given || candidate.number.replace(/\D/g, '') === digits)?.number ?? null;
}

/**
 * `transfer_call` (design.md, "Calls that act"): the model hands the caller to a person, at one
 * of the assistant's `transfer_numbers`. Offered on phone calls of assistants that have some,
 * and not again once the assistant is back from a warm transfer nobody answered (a call is
 * transferred at most once: `reserveTransfer`; the model's instructions say so, `callPrompt`).
 * The number is checked and its leg's first minute reserved before the model hears it worked;
 * the transfer itself comes once the transfer message is heard (the engine's `transfer`).
 */
export const transferCall: BuiltInFunction = {
  name: 'transfer_call',
  offer: ({ assistant, phoneLine, resumed }) => {
    const numbers = assistant.transfer_numbers;
    if (!phoneLine || numbers.length === 0 || resumed) return null;
    return {
      name: 'transfer_call',
      description:
        'Transfer the call to a person, when the customer asks for one or when a person must take over. ' +
        `The destinations: ${numbers.map((entry) => `${entry.number} (${entry.description})`).join('; ')}.`,
      parameters: {
        type: 'object',
        properties: { number: { type: 'string', enum: numbers.map((entry) => entry.number), description: 'The destination’s number, as listed.' } },
        required: ['number'],
      },
    };
  },
  run: async (args, { call, actions, setup }) => {
    const number = destination(args, setup.assistant.transfer_numbers);
    if (!number) return JSON.stringify({ error: REFUSALS['unknown-number'] });
    const refused = await call.reserveTransfer(number);
    if (refused) return JSON.stringify({ error: REFUSALS[refused] });
    actions.transfer();
    return JSON.stringify({ ok: true, transferring_to: number });
  },
};
