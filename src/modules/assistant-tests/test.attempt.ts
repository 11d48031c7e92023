import { AttemptFailure, NO_USAGE, type AssistantSession, type TestBrain, type TestToolCall, type TestUsage, type TokenCount, type VoiceSimulator } from './test.ports';
import { containsDeep, type ChatMessage, type TestConfig, type TestType } from './test.rules';
import { JUDGE_SYSTEM, VERDICT_SCHEMA, judgePrompt, readVerdicts, type Verdict } from './test.verdict';

/** What one attempt of a test came to: its result's fields. */
export interface AttemptOutcome {
  status: 'passed' | 'failed' | 'error';
  transcript: ChatMessage[];
  criteria: Verdict[];
  tool_calls: TestToolCall[];
  latency_ms: number[];
  usage: TestUsage;
  error: string | null;
}

/**
 * What the simulated caller writes to hang up (alone, or after its last words). The caller is
 * told so; the words before it are its last line.
 */
export const CALLER_HANGS_UP = '[[END_CALL]]';

/** A process given no voice simulator (TestBrain.voice): none is plugged in there. */
export const VOICE_UNAVAILABLE = 'voice simulations cannot run on this server';

export function callerSystem(persona: string, language: string): string {
  return [
    'You are a customer calling a business; an AI assistant of the business answers you. Play this persona, and stay in it:',
    persona,
    '',
    `Speak ${language}, as a person on the phone: short, one line at a time. Write only your next line, with no name before it.`,
    `When the conversation has reached its end, or you would hang up, write ${CALLER_HANGS_UP} after your last words.`,
  ].join('\n');
}

class Attempt {
  readonly transcript: ChatMessage[] = [];
  readonly toolCalls: TestToolCall[] = [];
  readonly usage: TestUsage = { ...NO_USAGE };
  readonly latencies: number[] = [];
  criteria: Verdict[] = [];

  count(who: 'llm' | 'caller' | 'judge', tokens: TokenCount): void {
    this.usage[`${who}_input_tokens`] += tokens.input;
    this.usage[`${who}_output_tokens`] += tokens.output;
  }

  outcome(status: AttemptOutcome['status'], error: string | null = null): AttemptOutcome {
    return { status, transcript: this.transcript, criteria: this.criteria, tool_calls: this.toolCalls, latency_ms: this.latencies, usage: this.usage, error };
  }

  /**
   * The judge's verdicts on the transcript; an answer that does not fit is asked again once,
   * then the attempt is an error (never passed).
   */
  async judge(session: AssistantSession, criteria: readonly string[], examples?: { success?: string[]; failure?: string[] }): Promise<AttemptOutcome> {
    const prompt = judgePrompt(criteria, this.transcript, examples);
    let misfit = '';
    for (let ask = 0; ask < 2; ask++) {
      const answer = await session.judge(JUDGE_SYSTEM, prompt, VERDICT_SCHEMA);
      this.count('judge', answer.tokens);
      const read = readVerdicts(answer.text, criteria);
      if ('verdicts' in read) {
        this.criteria = read.verdicts;
        return this.outcome(read.verdicts.every((verdict) => verdict.passed) ? 'passed' : 'failed');
      }
      misfit = read.misfit;
    }
    return this.outcome('error', `${misfit} (asked twice)`);
  }
}

/** Runs one attempt of a test against its assistant. A failure to run it is the outcome `error` with its reason, never a throw. */
export async function runAttempt(brain: TestBrain, accountId: number, assistantId: number, type: TestType, config: TestConfig): Promise<AttemptOutcome> {
  const attempt = new Attempt();
  try {
    const voice = type === 'simulation' && 'persona' in config && config.channel === 'voice';
    if (voice && !brain.voice) return attempt.outcome('error', VOICE_UNAVAILABLE);
    const session = await brain.open(accountId, assistantId, 'persona' in config ? (config.variables ?? {}) : {});
    if ('expect' in config) return await toolCallTest(session, attempt, config);
    if ('persona' in config && voice) return await voiceSimulation(brain.voice!, { accountId, assistantId }, session, attempt, config);
    if ('persona' in config) return await simulation(session, attempt, config);
    attempt.transcript.push(...config.messages);
    const turn = await session.reply(config.messages, { mocks: [], endCall: false, stopAtToolCalls: false });
    attempt.count('llm', turn.tokens);
    attempt.toolCalls.push(...turn.toolCalls);
    attempt.transcript.push({ role: 'assistant', content: turn.text });
    return await attempt.judge(session, config.success_criteria, { success: config.success_examples, failure: config.failure_examples });
  } catch (error) {
    if (error instanceof AttemptFailure) return attempt.outcome('error', error.message);
    throw error;
  }
}

async function toolCallTest(session: AssistantSession, attempt: Attempt, config: Extract<TestConfig, { expect: unknown }>): Promise<AttemptOutcome> {
  attempt.transcript.push(...config.messages);
  const turn = await session.reply(config.messages, { mocks: [], endCall: true, stopAtToolCalls: true });
  attempt.count('llm', turn.tokens);
  attempt.toolCalls.push(...turn.toolCalls);
  if (turn.text) attempt.transcript.push({ role: 'assistant', content: turn.text });
  const { tool, arguments: args } = config.expect;
  const called = turn.toolCalls.map((call) => call.name);
  let passed: boolean;
  let criterion: string;
  let reason: string;
  if (tool === null) {
    passed = called.length === 0;
    criterion = 'calls no tool';
    reason = passed ? 'no tool was called' : `called ${called.join(', ')}`;
  } else {
    const named = turn.toolCalls.filter((call) => call.name === tool);
    passed = named.some((call) => containsDeep(call.arguments, args ?? {}));
    criterion = args ? `calls ${tool} with arguments containing ${JSON.stringify(args)}` : `calls ${tool}`;
    reason = passed
      ? `called ${tool} with ${JSON.stringify(named.find((call) => containsDeep(call.arguments, args ?? {}))!.arguments)}`
      : named.length
        ? `called ${tool} with ${named.map((call) => JSON.stringify(call.arguments)).join(', ')}`
        : called.length
          ? `called ${called.join(', ')}, not ${tool}`
          : 'called no tool';
  }
  attempt.criteria = [{ criterion, passed, reason }];
  return attempt.outcome(passed ? 'passed' : 'failed');
}

/**
 * A chat simulation: the assistant greets when it speaks first; then each turn the simulated
 * caller speaks and the assistant answers, until the assistant ends the call, the caller hangs
 * up (CALLER_HANGS_UP) or `max_turns` caller lines were said; then the judge reads the transcript.
 */
async function simulation(session: AssistantSession, attempt: Attempt, config: Extract<TestConfig, { persona: string }>): Promise<AttemptOutcome> {
  const { transcript } = attempt;
  if (session.greeting) transcript.push({ role: 'assistant', content: session.greeting });
  const system = callerSystem(config.persona, session.language);
  for (let turn = 0; turn < config.max_turns; turn++) {
    const { words, hangsUp } = await callerLine(session, attempt, system, transcript);
    if (words) transcript.push({ role: 'user', content: words });
    if (hangsUp || !words) break;
    const answer = await session.reply(transcript, { mocks: config.tool_mocks ?? [], endCall: true, stopAtToolCalls: false });
    attempt.count('llm', answer.tokens);
    attempt.toolCalls.push(...answer.toolCalls);
    if (answer.text) transcript.push({ role: 'assistant', content: answer.text });
    if (answer.ended) break;
  }
  return attempt.judge(session, config.success_criteria);
}

/** The simulated caller's next line, and whether it hangs up after it; it reads the conversation from its side (the assistant's lines are the other party's). */
async function callerLine(session: AssistantSession, attempt: Attempt, system: string, transcript: readonly ChatMessage[]): Promise<{ words: string; hangsUp: boolean }> {
  const asCaller = transcript.map((message): ChatMessage => ({ role: message.role === 'user' ? 'assistant' : 'user', content: message.content }));
  const line = await session.caller(system, asCaller.length ? asCaller : [{ role: 'user', content: '(The call is connected. Speak first.)' }]);
  attempt.count('caller', line.tokens);
  return { words: line.text.split(CALLER_HANGS_UP).join(' ').trim(), hangsUp: line.text.includes(CALLER_HANGS_UP) };
}

/**
 * A voice simulation: the same turns as a chat one, on a call of the pipeline engine. The
 * assistant has its say (its opening when it speaks first); then each turn the caller's line is
 * spoken into the call and the assistant answers as it would on the phone, until the assistant
 * ends the call, the caller hangs up or `max_turns` lines were said. The transcript, tool calls
 * and latencies are the call's record; the judge reads it as it reads a chat's.
 */
async function voiceSimulation(
  voice: VoiceSimulator,
  of: { accountId: number; assistantId: number },
  session: AssistantSession,
  attempt: Attempt,
  config: Extract<TestConfig, { persona: string }>,
): Promise<AttemptOutcome> {
  const line = await voice.call(of.accountId, of.assistantId, config.variables ?? {}, config.tool_mocks ?? []);
  const system = callerSystem(config.persona, session.language);
  try {
    await line.listen();
    for (let turn = 0; turn < config.max_turns && !line.ended; turn++) {
      const { words, hangsUp } = await callerLine(session, attempt, system, line.transcript);
      if (words) await line.say(words);
      if (hangsUp || !words) break;
      await line.listen();
    }
  } finally {
    attempt.count('llm', await line.hangUp());
    attempt.transcript.push(...line.transcript);
    attempt.toolCalls.push(...line.toolCalls);
    attempt.latencies.push(...line.latencies);
  }
  if (line.failure) throw new AttemptFailure(`the call failed: ${line.failure}`);
  return attempt.judge(session, config.success_criteria);
}
