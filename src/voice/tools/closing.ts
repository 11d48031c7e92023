import { fillVariables } from '../engine.setup';

/**
 * How a call closes once a built-in function ended it (both engines): the reason it ends
 * with, and what is said first.
 */

/** The ends a function brings: the model hung up (`endCall`), or handed the caller over (`transfer_call`). */
export type Ending = 'end-call-tool' | 'transferred';

/**
 * What is said before the call closes: the assistant's own words, said as written (the
 * transfer's `transfer_message`, the call's variables filled), or else what the model is asked to say when its answer had
 * no words of its own.
 */
export function closingLine(
  ending: Ending,
  setup: { assistant: { transfer_message: string | null }; variables: Record<string, unknown> },
): { text: string } | { instructions: string } {
  const { transfer_message } = setup.assistant;
  if (ending === 'transferred' && transfer_message) return { text: fillVariables(transfer_message, setup.variables) };
  return {
    instructions:
      ending === 'transferred'
        ? 'Tell the customer briefly, in the language of the conversation, that you are transferring the call to a person now.'
        : 'Say a short goodbye to the customer, in the language of the conversation.',
  };
}

/** What the model is asked when the provider refused a transfer: the call goes on. */
export const TRANSFER_FAILED =
  'The transfer could not be made. Tell the customer, in the language of the conversation, that the call could not be transferred now, and offer to help.';
