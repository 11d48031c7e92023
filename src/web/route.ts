import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a request's log line and metrics learn on the way. */
export interface Seen {
  accountId: number | null;
  /** The REST route pattern the shim matched (null: none), once it has looked. */
  restRoute?: string | null;
}

/** One request on its way through the table. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request's URL on PUBLIC_URL (links are built on it, never on the Host header). */
  url: URL;
  path: string;
  requestId: string;
  seen: Seen;
}

/**
 * A line of the HTTP route table (app.ts): which requests it takes, the label its requests
 * have in metrics and logs (a pattern, never a raw path), and what answers them. The table
 * drives both, so a route cannot be served under one name and counted under another.
 */
export interface HttpRoute {
  match(request: Requested): boolean;
  label: string | ((request: Requested, seen: Seen) => string);
  handle(exchange: Exchange): Promise<void> | void;
}

/** What a route is chosen by: the method, the path and query, and the headers. */
export interface Requested {
  method: string;
  path: string;
  search: string;
  req: IncomingMessage;
}

export const isRead = (method: string) => method === 'GET' || method === 'HEAD';
