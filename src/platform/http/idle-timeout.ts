import type { ServerResponse } from 'node:http';

/** How much longer than the answer's own time its connection may stay silent (the last look, writing the answer). */
export const HOLD_OPEN_MARGIN_MS = 5_000;

/**
 * Lets a request whose answer comes after up to `ms` of silence (a message wait, an MCP wait_for_message)
 * outlive the server's idle timeout: the connection's idle timeout becomes `ms` plus a margin, unless it is
 * already longer or off. The request is already read in full, so only the server is silent meanwhile; Node's
 * headers and request timeouts concern receiving the request and no longer apply. The answer puts the
 * server's own timeout back (call it before writing the answer; Node then sets keepAliveTimeout once the
 * answer is sent), once. Proved by test/integration/long-requests.test.ts ("every server timeout shortened").
 */
export function holdOpenFor(res: ServerResponse, ms: number): () => void {
  const socket = res.socket;
  const before = socket?.timeout;
  const wanted = Math.ceil(ms) + HOLD_OPEN_MARGIN_MS;
  if (!socket || socket.destroyed || !before || before >= wanted) return () => {};
  socket.setTimeout(wanted);
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    if (!socket.destroyed) socket.setTimeout(before);
  };
}
