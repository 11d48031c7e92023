import type { LlmMessage } from '../../services/service';

export type AssistantMessage = Extract<LlmMessage, { role: 'assistant' }>;

/** Messages of the conversation kept in the model's context (the oldest leave first). */
const MAX_CONTEXT_MESSAGES = 200;

/**
 * The conversation as the model sees it: bounded, each assistant message cut to what the
 * caller heard of it, and each tool result right after the message that asked for it.
 */
export class Conversation {
  private readonly messages: LlmMessage[] = [];

  /**
   * A request's messages: the system prompt, the conversation so far, and what this answer only
   * is given (the knowledge base's excerpts in `prompt` mode, instructions), none of it kept.
   */
  request(systemPrompt: string, ...notes: (string | null | undefined)[]): LlmMessage[] {
    const messages: LlmMessage[] = [{ role: 'system', content: systemPrompt }, ...this.messages];
    for (const note of notes) if (note) messages.push({ role: 'system', content: note });
    return messages;
  }

  /** What the caller said last (the turn an answer answers), or null before they spoke. */
  lastCallerText(): string | null {
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i];
      if (message.role === 'user') return typeof message.content === 'string' ? message.content : null;
    }
    return null;
  }

  /** Adds a message (bounded); answers it, to be written or cut later. */
  remember<M extends LlmMessage>(message: M): M {
    this.messages.push(message);
    if (this.messages.length > MAX_CONTEXT_MESSAGES) {
      // Drop the oldest, never leaving a tool result without the call it answers.
      let drop = this.messages.length - MAX_CONTEXT_MESSAGES;
      while (this.messages[drop]?.role === 'tool') drop++;
      this.messages.splice(0, drop);
    }
    return message;
  }

  /** A message said before `later`, though it came after it (a caller's words whose final came late): in its place; last without `later`. */
  rememberBefore(message: LlmMessage, later?: LlmMessage | null): void {
    const at = later ? this.messages.indexOf(later) : -1;
    if (at < 0) this.remember(message);
    else this.messages.splice(at, 0, message);
  }

  /**
   * The results of a message's tool calls, right after it (the model's API wants them there).
   * Results given already (a placeholder, when the caller spoke before the tools answered) are
   * replaced: what the tools really did is what the model must know, so that it never does it
   * twice.
   */
  answerTools(message: AssistantMessage, outputs: string[]): void {
    const at = this.messages.indexOf(message);
    if (at < 0) return; // the context has since dropped it
    const results = message.tool_calls!.map((call, index): LlmMessage => ({ role: 'tool', tool_call_id: call.id, content: outputs[index] }));
    let given = 0;
    while (given < results.length && this.messages[at + 1 + given]?.role === 'tool') given++;
    this.messages.splice(at + 1, given, ...results);
  }

  /** Assistant messages the caller heard nothing of, and no tool call hangs on, leave the context. */
  forgetUnsaid(): void {
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i];
      if (message.role === 'assistant' && !message.content && !message.tool_calls?.length) this.messages.splice(i, 1);
    }
  }
}
