import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  /** performance.now() when the request was complete. */
  readonly at: number;
}

export interface Reply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Answer only after this many real milliseconds (timeouts). */
  readonly delayMs?: number;
}

/** A real HTTP receiver on 127.0.0.1 that records every request and answers as the test says. */
export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  respond: (req: ReceivedRequest) => Reply;
  /** Resolves when `count` requests have arrived (real time, for the running worker). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const self: WebhookReceiver = {
    url: '',
    port: 0,
    requests: [],
    respond: () => ({ status: 200, body: 'ok' }),
    waitFor(count, timeoutMs = 10_000) {
      if (self.requests.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${self.requests.length} of ${count} requests`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      self.requests.push(received);
      for (const w of [...waiters]) {
        if (self.requests.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      const reply = self.respond(received);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  Object.assign(self, { port, url: `http://127.0.0.1:${port}` });
  return self;
}
