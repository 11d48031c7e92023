import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError, FieldErrorCollector, Messages, ValidationError } from '../errors';
import { readBody, sendError, sendJson } from '../http';
import { Call } from '../modules/calls/call.entity';
import { Tool } from '../modules/tools/tool.entity';
import { runTool } from '../modules/calls/call.tools';
import { turnCount } from '../modules/calls/call.turns';
import type { ToolDeps } from '../modules/calls/call.tools';
import { validMediaToken } from '../telephony/twilio.wire';
import { LiveCall, type LiveCallDeps } from './live-call';
import { callKeyterms, engineSetup, fillVariables } from './engine.setup';
import { endCallFunction, toolFunction } from './tools';

/** The parts of the runtime the engine API uses: a live call's, and what mid-call tools need. */
type EngineApiDeps = LiveCallDeps & ToolDeps;

/**
 * The engine API (design.md, "Voice engines"): what an external engine (a Pipecat bot, for
 * example) that runs a `pipeline` assistant's call asks of vozgate, with the call's token from
 * the TwiML's `<Parameter name="token">` as a bearer token:
 *
 * - `GET /engine/calls/{id}`: the assistant's configuration and the call's variables;
 * - `POST /engine/calls/{id}/tools/{name}`: runs one of the assistant's mid-call tools with the
 *   JSON body as its arguments, through vozgate's guarded client; answers what the tool did;
 * - `POST /engine/calls/{id}/events`: `{"type":"turn","speaker":"assistant|customer","text":...}`
 *   adds a transcript turn; `{"type":"ended","reason":...}` ends the call (`end-call-tool`,
 *   `silence`, `engine-failed` hang it up through the provider; `customer` says the caller did).
 *
 * The bounds below are the README's ("Engine API: bounds").
 */

/**
 * How long after a call's `finished_at` its engine may still report turns and its end (the
 * speech-to-text finishing the caller's last words, a bot's queue draining). The token is an
 * HMAC of the call id and never changes, so the call's life is what bounds it: after the
 * grace every route answers 409, the configuration included. Mid-call tools stop at the end.
 */
export const ENGINE_GRACE_SECONDS = 60;
/** Characters of one turn's text. */
export const ENGINE_MAX_TURN_CHARS = 4000;
/** Turns a call may hold: one every 0.6 s of the longest call (max_call_duration 1200 s). */
export const ENGINE_MAX_TURNS = 2000;
/** Characters of all a call's turns together: about ten times what 20 minutes of speech make. */
export const ENGINE_MAX_TRANSCRIPT_CHARS = 200_000;
/** Requests of one call per window, in each process; an engine sends a few a second. */
export const ENGINE_RATE_LIMIT = 20;
export const ENGINE_RATE_WINDOW_MS = 1000;

// A tool's path segment is looked up by name: a name the tools' rule refuses names no tool (404).
const ROUTE = /^\/engine\/calls\/(\d{1,10})(?:\/(tools)\/([^/]{1,256})|\/(events))?$/;
const ENDINGS = ['end-call-tool', 'silence', 'engine-failed', 'customer'] as const;

/**
 * Counts each call's requests in fixed windows shared by all calls: the counts are dropped
 * when the next window starts, so memory holds only the calls heard from in this one.
 */
class CallRateLimiter {
  private windowStart = 0;
  private readonly counts = new Map<number, number>();

  /** Takes one request of `callId`: 0 when it may go on, otherwise the seconds until the next window. */
  take(callId: number, now = Date.now()): number {
    const start = now - (now % ENGINE_RATE_WINDOW_MS);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts.clear();
    }
    const count = (this.counts.get(callId) ?? 0) + 1;
    this.counts.set(callId, count);
    return count > ENGINE_RATE_LIMIT ? Math.ceil((start + ENGINE_RATE_WINDOW_MS - now) / 1000) : 0;
  }
}

/** One limiter per runtime (call ids are per database), in memory: a process limits what it serves. */
const limiters = new WeakMap<EngineApiDeps, CallRateLimiter>();

function rateLimiter(runtime: EngineApiDeps): CallRateLimiter {
  let limiter = limiters.get(runtime);
  if (!limiter) limiters.set(runtime, (limiter = new CallRateLimiter()));
  return limiter;
}

/** Whether the call ended longer than the grace ago. */
function pastGrace(call: Pick<Call, 'finished_at'>, now = Date.now()): boolean {
  return call.finished_at !== null && Date.parse(`${call.finished_at.replace(' ', 'T')}Z`) < now - ENGINE_GRACE_SECONDS * 1000;
}

/**
 * Why the statement that appends a turn refused it, from the call as it is now: the grace, or
 * one of the two caps (with the turns' count within its cap, the characters refused it).
 */
function turnRefusal(call: Call | null, turns: number): DomainError {
  if (!call) return new DomainError('NOT_FOUND', Messages.callNotFound);
  if (pastGrace(call)) return new DomainError('CONFLICT', Messages.engineGraceOver(ENGINE_GRACE_SECONDS));
  const errors = new FieldErrorCollector();
  if (turns >= ENGINE_MAX_TURNS) errors.add('text', Messages.engineTooManyTurns(ENGINE_MAX_TURNS));
  else errors.add('text', Messages.engineTranscriptTooLong(ENGINE_MAX_TRANSCRIPT_CHARS));
  return new ValidationError(errors.errors);
}

function bearer(req: IncomingMessage): string {
  return /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
}

async function jsonBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown> | null> {
  const raw = (await readBody(req, limit)).toString('utf8');
  try {
    const parsed = raw ? JSON.parse(raw) : {};
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export async function engineApi(runtime: EngineApiDeps, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  try {
    await serve(runtime, req, res, path);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    sendError(res, error.code, error.message, { ...(error.errors ? { errors: error.errors } : {}), ...error.details });
  }
}

async function serve(runtime: EngineApiDeps, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const match = ROUTE.exec(path);
  if (!match) return sendError(res, 'NOT_FOUND', Messages.routeNotFound);
  const callId = Number(match[1]);
  const action = match[2] ?? match[4] ?? 'call';
  const expected = action === 'call' ? 'GET' : 'POST';
  if (req.method !== expected) return sendError(res, 'METHOD_NOT_ALLOWED', Messages.methodNotAllowed, {}, { allow: expected });
  if (!validMediaToken(runtime.secrets, callId, bearer(req))) return sendError(res, 'UNAUTHENTICATED', Messages.unauthenticated);
  // After the token: one who does not hold it cannot spend the call's requests.
  const retryAfter = rateLimiter(runtime).take(callId);
  if (retryAfter > 0) return sendError(res, 'RATE_LIMITED', Messages.rateLimited(retryAfter), {}, { 'retry-after': retryAfter });

  const em = runtime.orm.em.fork();
  const call = await em.findOne(Call, { id: callId });
  if (!call) return sendError(res, 'NOT_FOUND', Messages.callNotFound);
  if (pastGrace(call)) return sendError(res, 'CONFLICT', Messages.engineGraceOver(ENGINE_GRACE_SECONDS));
  if (action === 'call') {
    const setup = await engineSetup(em, call);
    if (!setup) return sendError(res, 'NOT_FOUND', Messages.assistantNotFound);
    const { assistant, tools, variables } = setup;
    return sendJson(res, 200, {
      call: {
        id: call.id,
        type: call.type,
        status: call.status,
        customer_phone: call.client_phone_number,
        assistant_phone: call.assistant_phone_number,
        provider_call_id: call.provider_call_id,
        variables,
      },
      assistant: {
        id: assistant.id,
        name: assistant.assistant_name,
        language: assistant.language,
        language_code: setup.language,
        voice: setup.voice,
        llm_model: assistant.llm_model,
        llm_temperature: assistant.llm_temperature,
        system_prompt: fillVariables(assistant.system_prompt, variables),
        initial_message: fillVariables(assistant.initial_message, variables),
        who_speaks_first: assistant.who_speaks_first,
        allow_interruptions: assistant.allow_interruptions,
        endpoint_type: assistant.endpoint_type,
        endpoint_sensitivity: assistant.endpoint_sensitivity,
        interrupt_sensitivity: assistant.interrupt_sensitivity,
        use_min_interrupt_words: assistant.use_min_interrupt_words,
        min_interrupt_words: assistant.min_interrupt_words,
        speech_speed: assistant.speech_speed,
        voice_stability: assistant.voice_stability,
        voice_similarity: assistant.voice_similarity,
        ambient_sound_volume: assistant.ambient_sound_volume,
        noise_cancellation: assistant.noise_cancellation,
        filler_audios: assistant.filler_audios,
        re_engagement_interval: assistant.re_engagement_interval,
        max_silence_duration: assistant.max_silence_duration,
        max_call_duration: assistant.max_call_duration,
        end_call_on_voicemail: assistant.end_call_on_voicemail,
        // The turn-taking and voicemail settings (design.md, "The pipeline engine, round 2", "Calls that act"), for an engine that honours them.
        keyterms: callKeyterms(assistant.keyterms, variables),
        pronunciations: assistant.pronunciations,
        backchannel_words: assistant.backchannel_words,
        false_interruption_timeout_ms: assistant.false_interruption_timeout_ms,
        voicemail_message: assistant.voicemail_message === null ? null : fillVariables(assistant.voicemail_message, variables),
        voicemail_beep_timeout_seconds: assistant.voicemail_beep_timeout_seconds,
        tools: tools.map((tool) => ({ type: 'function', ...toolFunction(tool) })),
        end_call_tool: { type: 'function', ...endCallFunction(assistant) },
      },
    });
  }

  const body = await jsonBody(req, runtime.config.maxBodyBytes);
  if (!body) return sendError(res, 'BAD_REQUEST', Messages.invalidJson);
  const live = new LiveCall(runtime, callId);

  if (action === 'tools') {
    // The assistant's tool of that name, alone: a call's engine runs one tool at a time.
    const [link] = call.assistant_id
      ? await em.execute('select t.id from tools t join assistant_tools a on a.tool_id = t.id where a.assistant_id = ? and t.name = ?', [call.assistant_id, match[3]])
      : [];
    const tool = link ? await em.findOne(Tool, { id: link.id }) : null;
    if (!tool) return sendError(res, 'NOT_FOUND', Messages.toolNotFound);
    if (call.finished_at) return sendError(res, 'CONFLICT', Messages.callAlreadyEnded);
    const parameters = Object.fromEntries(tool.schema.filter((item) => item.name in body).map((item) => [item.name, body[item.name]]));
    const record = await runTool(runtime, callId, tool, parameters);
    live.toolCall(record);
    await live.settled();
    return sendJson(res, 200, { status: record.status, response: record.response, error: record.error, latency_ms: record.latency_ms });
  }

  const errors = new FieldErrorCollector();
  if (body.type === 'turn') {
    if (body.speaker !== 'assistant' && body.speaker !== 'customer') errors.add('speaker', 'O campo speaker deve ser assistant ou customer.');
    if (typeof body.text !== 'string' || !body.text.trim() || body.text.length > ENGINE_MAX_TURN_CHARS) {
      errors.add('text', `O campo text deve ser um texto de 1 a ${ENGINE_MAX_TURN_CHARS} caracteres.`);
    }
    errors.throwIfAny();
    const turn = { speaker: body.speaker as 'assistant' | 'customer', text: (body.text as string).trim() };
    const written = await live.turnWithin(turn, {
      maxTurns: ENGINE_MAX_TURNS,
      maxChars: ENGINE_MAX_TRANSCRIPT_CHARS,
      finishedSince: new Date(Date.now() - ENGINE_GRACE_SECONDS * 1000),
    });
    if (!written) {
      const now = runtime.orm.em.fork();
      throw turnRefusal(await now.findOne(Call, { id: callId }), await turnCount(now, callId));
    }
  } else if (body.type === 'ended') {
    const reason = ENDINGS.find((ending) => ending === body.reason);
    if (!reason) errors.add('reason', `O campo reason deve ser um de: ${ENDINGS.join(', ')}.`);
    errors.throwIfAny();
    if (reason === 'customer') {
      live.endedAtProvider();
      await live.settled();
    } else {
      await live.hangup(reason!);
    }
  } else {
    errors.add('type', 'O campo type deve ser turn ou ended.');
    errors.throwIfAny();
  }
  res.writeHead(204);
  res.end();
}
