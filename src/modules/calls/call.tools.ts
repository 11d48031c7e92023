import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { BLOCKED_TARGET_HINT, OutboundError, outboundRequest } from '../../lib/outbound';
import type { SecretBox } from '../../lib/secrets';
import type { Logger } from '../../log';
import type { Assistant } from '../assistants/assistant.entity';
import { Tool } from '../tools/tool.entity';
import { toolHeaders } from '../tools/tool.service';
import { seeded, typedValue } from './call.conversation';
import type { Call, ToolCallRecord } from './call.entity';

const RESPONSE_BYTES = 4096;

export type ToolDeps = { config: Config; secrets: SecretBox; logger?: Logger };

/**
 * The least time a tool is started with. The timer that cut the previous tool to the budget
 * can fire a millisecond before the deadline by `Date.now()`, and a request given what is
 * then left could only time out.
 */
const MIN_TOOL_MS = 10;

/**
 * Calls each tool of the assistant once, as the AI would mid-call: parameters from the
 * tool's schema (the call's variable of the same name, else a value of the type), GET as a
 * query string and the other methods as a JSON body, with the tool's headers and timeout.
 * A failure or a timeout is recorded and the call goes on. All of a call's tools together
 * get at most CALL_TOOLS_BUDGET_SECONDS: a tool is cut to what is left, and once nothing is
 * left (under MIN_TOOL_MS) the rest are recorded as skipped. Runs outside any transaction.
 */
export async function runTools(
  em: EntityManager,
  deps: ToolDeps,
  call: Pick<Call, 'id' | 'input_variables'>,
  assistant: Pick<Assistant, 'id'>,
): Promise<ToolCallRecord[]> {
  const links: { tool_id: number }[] = await em.execute('select tool_id from assistant_tools where assistant_id = ? order by tool_id', [assistant.id]);
  if (links.length === 0) return [];
  const tools = await em.find(Tool, { id: { $in: links.map((l) => l.tool_id) } }, { orderBy: { id: 'asc' } });
  const records: ToolCallRecord[] = [];
  const deadline = Date.now() + deps.config.callToolsBudgetSeconds * 1000;
  for (const tool of tools) {
    const parameters: Record<string, unknown> = {};
    for (const item of tool.schema) {
      parameters[item.name] = typedValue(item.type, call.input_variables[item.name], seeded(call.id, tool.id, item.name), `${item.name} informado pelo cliente`);
    }
    const left = deadline - Date.now();
    if (left >= MIN_TOOL_MS) {
      records.push(await runTool(deps, call.id, tool, parameters, left));
    } else {
      records.push({ ...toolRequest(deps, tool, parameters).record, error: 'skipped: the call has used its time for tools' });
    }
  }
  return records;
}


/** The request a tool makes with these parameters, as its record starts. */
function toolRequest(deps: ToolDeps, tool: Tool, parameters: Record<string, unknown>): { record: ToolCallRecord; headers: Record<string, string>; body?: string } {
  const url = new URL(tool.endpoint);
  const hasBody = tool.method !== 'GET';
  if (!hasBody) for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { 'user-agent': 'vozgate-tools/1', accept: 'application/json' };
  if (hasBody) headers['content-type'] = 'application/json';
  for (const header of toolHeaders(deps.secrets, tool)) headers[header.name.toLowerCase()] = header.value;
  const record = { tool_id: tool.id, name: tool.name, method: tool.method, url: url.toString(), parameters, status: null, response: null, error: null, latency_ms: 0 };
  return { record, headers, body: hasBody ? JSON.stringify(parameters) : undefined };
}

/**
 * One mid-call tool, called with `parameters` (GET as a query string, the other methods as a
 * JSON body) with its headers, through the guarded outbound client, for at most its timeout
 * and `leftMs`. A failure or a timeout is recorded, never thrown.
 */
export async function runTool(deps: ToolDeps, callId: number, tool: Tool, parameters: Record<string, unknown>, leftMs = Infinity): Promise<ToolCallRecord> {
  const { record, headers, body } = toolRequest(deps, tool, parameters);
  try {
    const response = await outboundRequest({
      url: record.url,
      method: tool.method,
      headers,
      body,
      timeoutMs: Math.min(tool.timeout * 1000, leftMs),
      maxResponseBytes: RESPONSE_BYTES,
      allowPrivate: deps.config.allowPrivateNetworkTargets,
    });
    record.status = response.status;
    record.response = response.body;
    record.latency_ms = response.latencyMs;
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    record.error = `${error.kind}: ${error.message}`;
    record.latency_ms = error.latencyMs;
  }
  const blocked = record.error?.startsWith('blocked');
  deps.logger?.info('mid-call tool', {
    call_id: callId,
    tool_id: tool.id,
    name: tool.name,
    status: record.status,
    latency_ms: record.latency_ms,
    ...(record.error ? { error: record.error } : {}),
    ...(blocked ? { hint: BLOCKED_TARGET_HINT } : {}),
  });
  return record;
}
