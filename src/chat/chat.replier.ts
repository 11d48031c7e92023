import { DomainError, Messages, NotFoundError } from '../errors';
import { modelMissing } from '../modules/conversations/conversation.exchange';
import type { ConversationReplier, ReplyRequest, ReplyResult } from '../modules/conversations/conversation.ports';
import { WEB_PROVIDER } from '../modules/calls/call.web-provider';
import type { Runtime } from '../runtime';
import { callPrompt, engineSetup, setupFingerprint, setupFingerprintSql, type EngineSetup } from '../voice/engine.setup';
import { knowledgeNote } from '../voice/engines/pipeline/call-replies';
import { Conversation, type AssistantMessage } from '../voice/engines/pipeline/context';
import { MAX_TOOL_ROUNDS } from '../voice/engines/pipeline/reply';
import { assistantSearch } from '../voice/assistant-search';
import { assistantLlm } from '../voice/services/llm-chain';
import { llmAccess } from '../voice/services/openai.llm';
import { ServiceError, type LlmService, type LlmToolCall } from '../voice/services/service';
import { callFunctions, runFunction, type CallActions, type CallFunction, type FunctionCall } from '../voice/tools';

/** The parts of the runtime a conversation's reply uses. */
export type ChatDeps = Pick<Runtime, 'orm' | 'config' | 'secrets' | 'logger' | 'embedder'>;

/** Built-in functions of a phone call that mean nothing in a chat (the conversation's close comes later). */
const CALL_ONLY = new Set(['endCall']);
/** What the model is told of tools it asked for once the reply's time for tools is spent. */
const TOOLS_OUT_OF_TIME = JSON.stringify({ error: 'no time left for tools in this reply' });

/** The assistants whose setups a process keeps (the least recently read go first). */
const SETUPS_KEPT = 1000;

/** Nothing in a chat is a call's to end, transfer or dial (none of these is offered in one). */
const NO_CALL: CallActions = { endCall: () => {}, transfer: () => {}, pressDigits: async () => false };

/**
 * The assistant's brain over text: the pipeline engine's (design.md, "Conversations"). The
 * assistant's prompt with the conversation's variables, the conversation so far, its mid-call
 * tools through the guarded client (all of a reply's tools within CALL_TOOLS_BUDGET_SECONDS),
 * its knowledge base (`search_knowledge_base`, or the best chunks as a note in `prompt` mode),
 * and its model with its fallback models, at most MAX_TOOL_ROUNDS rounds, the last without
 * tools so that it ends in words.
 */
export class ChatReplier implements ConversationReplier {
  constructor(private readonly deps: ChatDeps) {}

  /** Each assistant's setup as its last reply read it, by assistant id, with its fingerprint (at most SETUPS_KEPT). */
  private readonly setups = new Map<number, { fingerprint: string; setup: EngineSetup }>();

  async reply(request: ReplyRequest): Promise<ReplyResult> {
    const { deps } = this;
    const shared = await this.ownSetup(request);
    const setup: EngineSetup = { ...shared, variables: { ...shared.assistant.variables, ...request.variables } };
    const llm = assistantLlm(deps.config.voice.pipeline, setup, (event) => deps.logger.info('chat: the model’s fallback', { ...event }));
    if (!llm) throw modelMissing();

    const conversation = new Conversation();
    for (const message of request.history) {
      // A person of the business speaks for it: the model reads their words as its own side's.
      conversation.remember(message.role === 'user' ? { role: 'user', content: message.content } : { role: 'assistant', content: message.content });
    }
    try {
      return await this.answer(setup, llm, conversation, request.onText);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      deps.logger.warn('chat: the model failed', { assistant_id: request.assistantId, reason: error.message });
      throw new DomainError('PROVIDER_FAILURE', Messages.conversationModelFailed);
    }
  }

  async ensureAnswerable(request: Pick<ReplyRequest, 'accountId' | 'assistantId' | 'setupVersion'>): Promise<void> {
    const setup = await this.ownSetup(request);
    if (!llmAccess(this.deps.config.voice.pipeline, setup.modelProvider)) throw modelMissing();
  }

  /** The account's assistant's setup, shared (kept per process), or NOT_FOUND. */
  private async ownSetup(request: Pick<ReplyRequest, 'accountId' | 'assistantId' | 'setupVersion'>): Promise<EngineSetup> {
    const shared = await this.assistantSetup(request.assistantId, request.setupVersion);
    if (!shared || shared.assistant.account.id !== request.accountId) throw new NotFoundError(Messages.assistantNotFound);
    return shared;
  }

  /** The setup's fingerprint (setupFingerprint), which a conversation's read selects with it. */
  setupVersion(assistantIdSql: string): string {
    return setupFingerprintSql(assistantIdSql);
  }

  private async answer(setup: EngineSetup, llm: LlmService, conversation: Conversation, onText?: (delta: string) => void): Promise<ReplyResult> {
    const { text, usage } = await assistantTurn(this.deps, setup, llm, conversation, { onText });
    // An answer of no words is no answer: the customer's message waits for another try.
    if (!text) throw new ServiceError('llm', 'refused', 'the model answered no words');
    return { text, usage };
  }

  /**
   * The assistant's setup for a conversation (the conversation's variables apart): read again
   * only when a row it was read from changed (its fingerprint, read with the conversation or
   * else in a statement of its own), so that a reply costs the database no statement for it,
   * not one per table, and the ORM no entities. The next reply after a change to the prompt, a
   * tool or the knowledge base reads it.
   */
  private async assistantSetup(assistantId: number, known: string | null | undefined): Promise<EngineSetup | null> {
    // A setup kept and known current costs no fork of the ORM either.
    const fork = () => this.deps.orm.em.fork();
    const fingerprint = known === undefined ? await setupFingerprint(fork(), assistantId) : known;
    if (fingerprint === null) return null;
    const kept = this.setups.get(assistantId);
    this.setups.delete(assistantId);
    if (kept?.fingerprint === fingerprint) {
      this.setups.set(assistantId, kept);
      return kept.setup;
    }
    const setup = await engineSetup(fork(), { id: 0, assistant_id: assistantId, input_variables: {}, provider: WEB_PROVIDER, type: 'web' });
    if (!setup) return null;
    if (this.setups.size >= SETUPS_KEPT) this.setups.delete(this.setups.keys().next().value!);
    this.setups.set(assistantId, { fingerprint, setup });
    return setup;
  }
}

/** What a caller of the text loop other than a conversation asks of it (an assistant test, src/chat/test.brain.ts). */
export interface TurnOptions {
  /** Each piece of the reply's text as the model writes it (it must not throw nor wait). */
  onText?: (delta: string) => void;
  /** The output of a function call instead of running it (a test's mock); undefined: it runs. */
  answer?: (name: string, args: string) => string | undefined;
  /** Each function the model called, and whether `answer` answered it. */
  onCall?: (name: string, args: string, answered: boolean) => void;
  /** `endCall` is offered, as on a call; once called, the reply ends with that round's words. */
  endCall?: boolean;
  /** The reply ends at its first round that calls functions, none of them run. */
  stopAtToolCalls?: boolean;
}

export interface TurnResult extends ReplyResult {
  /** The model called `endCall`. */
  ended: boolean;
}

/**
 * One reply of the assistant over text: the conversations' loop (ChatReplier), which assistant
 * tests run too. The words of each round joined; no words is not an error here (a test's
 * assistant may end the call in silence): ChatReplier says what it means for a conversation.
 */
export async function assistantTurn(deps: ChatDeps, setup: EngineSetup, llm: LlmService, conversation: Conversation, options: TurnOptions = {}): Promise<TurnResult> {
  const { onText } = options;
  const usage = { llm_input_tokens: 0, llm_output_tokens: 0 };
  let ended = false;
  const call: FunctionCall = {
    // A conversation is no call: its tools' log lines carry call_id 0, and their records are not kept yet (README).
    id: 0,
    toolCall: () => {},
    searchKnowledge: async (base, query) => (await assistantSearch(deps, base, query)).hits,
    reserveTransfer: async () => 'not-in-progress',
  };
  const actions: CallActions = { ...NO_CALL, endCall: () => void (ended = true) };
  const offered = callFunctions(setup).filter((fn) => options.endCall || !CALL_ONLY.has(fn.name));
  const run = (fn: LlmToolCall) => {
    const known = offered.some((each) => each.name === fn.function.name);
    const mocked = known && !CALL_ONLY.has(fn.function.name) ? options.answer?.(fn.function.name, fn.function.arguments) : undefined;
    options.onCall?.(fn.function.name, fn.function.arguments, mocked !== undefined);
    if (mocked !== undefined) return Promise.resolve(mocked);
    return known ? runFunction(setup, fn.function.name, fn.function.arguments, { deps, call, actions }) : Promise.resolve(JSON.stringify({ error: 'unknown tool' }));
  };
  const note = await knowledgeNoteOf(deps, setup, conversation);
  const deadline = Date.now() + deps.config.callToolsBudgetSeconds * 1000;
  const said: string[] = [];
  const signal = new AbortController().signal;
  for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
    const functions: CallFunction[] = round < MAX_TOOL_ROUNDS - 1 ? offered : [];
    const messages = conversation.request(callPrompt(setup), note);
    const message = conversation.remember<AssistantMessage>({ role: 'assistant', content: '' });
    const calls: LlmToolCall[] = [];
    let written = '';
    const { model, temperature } = { model: setup.assistant.llm_model, temperature: setup.assistant.llm_temperature };
    for await (const chunk of llm.complete({ model, temperature, messages, tools: functions }, signal)) {
      if (chunk.type === 'text') {
        // A round after words already said starts a new sentence of the same reply (said.join).
        if (!written && said.length && chunk.text) onText?.(' ');
        written += chunk.text;
        onText?.(chunk.text);
      }
      else if (chunk.type === 'tool_call') calls.push(chunk.call);
      else {
        usage.llm_input_tokens += chunk.inputTokens;
        usage.llm_output_tokens += chunk.outputTokens;
      }
    }
    message.content = written;
    if (written.trim()) said.push(written.trim());
    if (calls.length === 0) break;
    message.tool_calls = calls;
    if (options.stopAtToolCalls) {
      for (const fn of calls) options.onCall?.(fn.function.name, fn.function.arguments, false);
      break;
    }
    const outputs = Date.now() < deadline ? await Promise.all(calls.map(run)) : calls.map(() => TOOLS_OUT_OF_TIME);
    conversation.answerTools(message, outputs);
    if (ended) break;
  }
  return { text: said.join(' '), usage, ended };
}

/** `prompt` mode: the base's best chunks for the customer's last message, as the pipeline gives them (a failed search: none). */
async function knowledgeNoteOf(deps: ChatDeps, setup: EngineSetup, conversation: Conversation): Promise<string | null> {
  const base = setup.knowledgeBase?.mode === 'prompt' ? setup.knowledgeBase : null;
  const text = base ? conversation.lastCallerText() : null;
  if (!base || !text) return null;
  try {
    return knowledgeNote((await assistantSearch(deps, base, text)).hits);
  } catch (error) {
    deps.logger.error('chat: a knowledge-base search failed', error);
    return null;
  }
}
