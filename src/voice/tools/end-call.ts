import type { BuiltInFunction } from './function';

const DEFAULT_DESCRIPTION = 'End the call when the conversation has reached its end, or the customer asks to hang up.';

/**
 * `endCall`: the model ends the call (described by the assistant's `end_call_tool.description`).
 * User tools' names are lowercase, so this one is never theirs.
 */
export const endCall: BuiltInFunction = {
  name: 'endCall',
  offer: ({ assistant }) => ({
    name: 'endCall',
    description: assistant.end_call_tool_description || DEFAULT_DESCRIPTION,
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  run: (_args, { actions }) => {
    actions.endCall();
    return '{"ok":true}';
  },
};
