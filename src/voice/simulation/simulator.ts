import { AttemptFailure, type VoiceLine, type VoiceSimulator } from '../../modules/assistant-tests/test.ports';
import { ENGINE_NAMES, type ToolMock } from '../../modules/assistant-tests/test.rules';
import type { ToolCallRecord } from '../../modules/calls/call.entity';
import { WEB_PROVIDER } from '../../modules/calls/call.web-provider';
import type { Runtime } from '../../runtime';
import { engineSetup } from '../engine.setup';
import { pipelineServices, startEngine, type EngineDeps } from '../engines';
import { ttsOptions } from '../engines/pipeline/parts';
import type { ToolStandIn } from '../tools/function';
import { LINE_RATE, SimulatedLine } from './line';
import { SimulatedCall } from './simulated-call';

/** The parts of the runtime a voice simulation runs the engine with. */
export type SimulatorDeps = Pick<Runtime, 'orm' | 'config' | 'secrets' | 'logger' | 'lifecycle' | 'telephony' | 'embedder'>;

export const MULTIMODAL_NOT_SIMULATED =
  'voice simulations run the pipeline engine; this assistant is multimodal (OpenAI Realtime), whose audio cannot be simulated here: use a chat simulation';

/**
 * Voice simulations (design.md, "Assistant tests"): the assistant's call on the pipeline engine
 * that takes its real calls (startEngine, as a web call's: a web call's setup, with no number to
 * transfer to), on an in-process line (line.ts) instead of a phone's or a browser's socket.
 * The engine is given the runtime as a call's, but for the tools a test mocks, which answer with
 * their mock and make no request (the others go through the guarded client, as on a call), and
 * for telemetry, which exports no span of a simulation.
 */
export class PipelineSimulator implements VoiceSimulator {
  constructor(private readonly deps: SimulatorDeps) {}

  async call(accountId: number, assistantId: number, variables: Record<string, unknown>, mocks: readonly ToolMock[]): Promise<VoiceLine> {
    const { deps } = this;
    const setup = await engineSetup(deps.orm.em.fork(), { id: 0, assistant_id: assistantId, input_variables: variables, provider: WEB_PROVIDER, type: 'web' });
    if (!setup || setup.assistant.account.id !== accountId) throw new AttemptFailure('the assistant was deleted');
    if (setup.assistant.engine_type === 'multimodal') throw new AttemptFailure(MULTIMODAL_NOT_SIMULATED);
    // The caller's words are spoken by the assistant's own TTS vendor and voice, on a session of their own (not the call's usage).
    const callerVoice = pipelineServices(deps.config.voice.pipeline, setup);
    if (typeof callerVoice === 'string') throw new AttemptFailure(`the assistant cannot take calls on this server: ${callerVoice}`);
    const mocked = new WeakSet<ToolCallRecord>();
    const byName = new Map(mocks.map((mock) => [ENGINE_NAMES[mock.tool] ?? mock.tool, mock]));
    const toolStandIn: ToolStandIn = (tool, parameters) => {
      const mock = byName.get(tool.name);
      if (!mock) return null;
      const record: ToolCallRecord = {
        tool_id: tool.id,
        name: tool.name,
        method: tool.method,
        url: tool.endpoint,
        parameters,
        status: mock.status,
        response: JSON.stringify(mock.response),
        error: null,
        latency_ms: 0,
      };
      mocked.add(record);
      return record;
    };
    const engineDeps: EngineDeps & { toolStandIn: ToolStandIn } = { config: deps.config, secrets: deps.secrets, logger: deps.logger, telemetry: null, toolStandIn };
    let line: SimulatedLine | null = null;
    const call = new SimulatedCall(deps, { hungUp: () => line?.hungUp() });
    const assistantFirst = setup.assistant.who_speaks_first === 'AI assistant' && setup.assistant.initial_message.trim() !== '';
    line = new SimulatedLine(call, callerVoice.tts.open(ttsOptions(setup, callerVoice, LINE_RATE)), mocked, assistantFirst);
    const engine = await startEngine(engineDeps, call, setup, line.out);
    if (typeof engine === 'string') {
      await line.hangUp();
      throw new AttemptFailure(`the assistant cannot take calls on this server: ${engine}`);
    }
    line.connect(engine);
    return line;
  }
}
