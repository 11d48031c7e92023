import type { WebSocketServer } from 'ws';

/**
 * Waits for `work` at most `ms`: true when it settled in time. A shutdown waits on parts it
 * does not control (a socket, a pool, a vendor), and must end whether or not they answer.
 */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long terminated sockets get to report their close. */
const TERMINATED_WAIT_MS = 1000;

/**
 * Closes a WebSocketServer within about `graceMs`: its clients are asked to close (1001, going
 * away), those still open then are terminated, and the server counts as closed even if one of
 * them never reports its close. `ws` calls back from `close()` only once every client has
 * emitted 'close', and a socket can fail to (a client that never answers the close frame keeps
 * it 30 s; one whose message handler threw mid-frame, forever).
 */
export async function closeWebSockets(wss: WebSocketServer, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => wss.close(() => resolve()));
  for (const client of wss.clients) client.close(1001, 'Going away');
  if (await within(closed, graceMs)) return;
  for (const client of wss.clients) client.terminate();
  await within(closed, TERMINATED_WAIT_MS);
}
