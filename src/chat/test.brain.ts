import { AttemptFailure, type AssistantSession, type TestBrain, type TestToolCall, type TokenCount, type VoiceSimulator } from '../modules/assistant-tests/test.ports';
import { ENGINE_NAMES, isObject, testToolName, type ChatMessage, type ToolMock } from '../modules/assistant-tests/test.rules';
import { modelParams } from '../modules/catalog/model.params';
import { WEB_PROVIDER } from '../modules/calls/call.web-provider';
import { engineSetup, fillVariables, type EngineSetup } from '../voice/engine.setup';
import { Conversation } from '../voice/engines/pipeline/context';
import { assistantLlm } from '../voice/services/llm-chain';
import { llmAccess, OpenAiLlm } from '../voice/services/openai.llm';
import { ServiceError, type LlmService } from '../voice/services/service';
import { assistantTurn, type ChatDeps } from './chat.replier';

/** How long the judge may take to answer (unstreamed: the whole answer at once). */
const JUDGE_TIMEOUT_MS = 60_000;

/**
 * Assistant tests' models (design.md, "Assistant tests"): the assistant answers through the
 * conversations' own text loop (assistantTurn: its prompt, variables, tools through the guarded
 * client, knowledge base, fallback models); the simulated caller (TEST_CALLER_MODEL) and the
 * judge (TEST_JUDGE_MODEL), the assistant's model when unset, through the provider the
 * catalogue names for each model (LLM_PROVIDERS, else OPENAI_BASE_URL).
 */
export class ChatTestBrain implements TestBrain {
  /** `voice`: voice simulations' calls (src/voice/simulation/); without it they are an error. */
  constructor(
    private readonly deps: ChatDeps,
    readonly voice?: VoiceSimulator,
  ) {}

  async open(accountId: number, assistantId: number, variables: Record<string, unknown>): Promise<AssistantSession> {
    const { deps } = this;
    const em = deps.orm.em.fork();
    const setup = await engineSetup(em, { id: 0, assistant_id: assistantId, input_variables: variables, provider: WEB_PROVIDER, type: 'web' });
    if (!setup || setup.assistant.account.id !== accountId) throw new AttemptFailure('the assistant was deleted');
    const llm = assistantLlm(deps.config.voice.pipeline, setup, (event) => deps.logger.info('tests: the model’s fallback', { ...event }));
    if (!llm) throw new AttemptFailure('no endpoint serves the assistant’s model on this server (OPENAI_API_KEY or LLM_PROVIDERS)');
    const { callerModel, judgeModel } = deps.config.assistantTests;
    const caller = await this.model(callerModel ?? setup.assistant.llm_model, setup);
    const judge = await this.model(judgeModel ?? setup.assistant.llm_model, setup);
    const assistant = setup.assistant;
    return {
      language: assistant.language,
      greeting: assistant.who_speaks_first === 'AI assistant' && assistant.initial_message ? fillVariables(assistant.initial_message, setup.variables) : null,
      reply: (history, options) => this.reply(setup, llm, history, options),
      caller: (system, history) => this.caller(caller, system, history),
      judge: (system, user, schema) => this.judge(judge, system, user, schema),
    };
  }

  /** A model by name at its provider's endpoint, with the catalogue's params. */
  private async model(name: string, setup: EngineSetup): Promise<{ name: string; llm: OpenAiLlm }> {
    const [row] = name === setup.assistant.llm_model ? [{ provider: setup.modelProvider, params: setup.modelParams }] : await this.deps.orm.em.fork().execute<{ provider: string | null; params: unknown }[]>('select provider, params from models where name = ?', [name]);
    const access = llmAccess(this.deps.config.voice.pipeline, row?.provider ?? null);
    if (!access) throw new AttemptFailure(`no endpoint serves the model ${name} on this server (OPENAI_API_KEY or LLM_PROVIDERS)`);
    return { name, llm: new OpenAiLlm({ ...access, models: { [name]: modelParams(row?.params ?? null) } }) };
  }

  private async reply(setup: EngineSetup, llm: LlmService, history: readonly ChatMessage[], options: { mocks: readonly ToolMock[]; endCall: boolean; stopAtToolCalls: boolean }) {
    const conversation = new Conversation();
    for (const message of history) conversation.remember({ role: message.role, content: message.content });
    const mocks = new Map(options.mocks.map((mock) => [ENGINE_NAMES[mock.tool] ?? mock.tool, mock]));
    const toolCalls: TestToolCall[] = [];
    try {
      const turn = await assistantTurn(this.deps, setup, llm, conversation, {
        endCall: options.endCall,
        stopAtToolCalls: options.stopAtToolCalls,
        answer: (name) => {
          const mock = mocks.get(name);
          // As a tool's own answer reaches the model (voice/tools/assistant-tool.ts).
          return mock ? JSON.stringify({ status: mock.status, response: mock.response }) : undefined;
        },
        onCall: (name, args, mocked) => toolCalls.push({ name: testToolName(name), arguments: argumentsOf(args), mocked }),
      });
      return { text: turn.text, toolCalls, ended: turn.ended, tokens: { input: turn.usage.llm_input_tokens, output: turn.usage.llm_output_tokens } };
    } catch (error) {
      if (error instanceof ServiceError) throw new AttemptFailure(`the assistant’s model failed: ${error.message}`);
      throw error;
    }
  }

  private async caller(model: { name: string; llm: OpenAiLlm }, system: string, history: readonly ChatMessage[]): Promise<{ text: string; tokens: TokenCount }> {
    const tokens = { input: 0, output: 0 };
    let text = '';
    try {
      const messages = [{ role: 'system' as const, content: system }, ...history.map((message) => ({ role: message.role, content: message.content }))];
      for await (const chunk of model.llm.complete({ model: model.name, temperature: 0.7, messages, tools: [] }, new AbortController().signal)) {
        if (chunk.type === 'text') text += chunk.text;
        else if (chunk.type === 'usage') {
          tokens.input += chunk.inputTokens;
          tokens.output += chunk.outputTokens;
        }
      }
    } catch (error) {
      if (error instanceof ServiceError) throw new AttemptFailure(`the simulated caller’s model failed: ${error.message}`);
      throw error;
    }
    return { text: text.trim(), tokens };
  }

  /** The judge, unstreamed, with `response_format` JSON schema (strict): its text as written, read by the domain. */
  private async judge(model: { name: string; llm: OpenAiLlm }, system: string, user: string, schema: { name: string; schema: Record<string, unknown> }) {
    const messages = [
      { role: 'system' as const, content: system },
      { role: 'user' as const, content: user },
    ];
    try {
      const answer = await model.llm.answer({ model: model.name, messages, schema }, JUDGE_TIMEOUT_MS);
      return { text: answer.text, tokens: { input: answer.inputTokens, output: answer.outputTokens } };
    } catch (error) {
      if (error instanceof ServiceError) throw new AttemptFailure(`the judge’s model failed: ${error.message}`);
      throw error;
    }
  }
}

/** A function call's arguments as an object (anything else the model wrote: none). */
function argumentsOf(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args || '{}');
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
