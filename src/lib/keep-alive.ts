import type { AgentOptions } from 'node:http';

/**
 * An HTTP agent's options for a client that talks to one server again and again: connections
 * kept open between requests, each let go a second before the server's `Keep-Alive: timeout=N`
 * says it closes it (as fetch does). Node's agent reads that hint only when it has a `timeout`
 * of its own: without one, a request after a pause as long as the server's timeout (uvicorn's,
 * vLLM's, Node's own: 5 s) could be written into a connection the server was closing, and fail
 * (`socket hang up`). The timeout itself is the longest an idle connection stays.
 */
export const KEEP_ALIVE: AgentOptions = { keepAlive: true, timeout: 60_000 };
