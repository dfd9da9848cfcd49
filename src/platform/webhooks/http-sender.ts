import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalHostProblem, type Resolver } from './ssrf.js';

export interface SendRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly timeoutMs: number;
}

export interface SendResult {
  /** Undefined when no response came (refused, timeout, network error). */
  readonly statusCode?: number;
  readonly retryAfter?: string;
  /** The first RESPONSE_BODY_LIMIT bytes of the response. */
  readonly responseBody?: string;
  readonly error?: string;
  readonly latencyMs: number;
}

export const RESPONSE_BODY_LIMIT = 4096;

/**
 * Outbound HTTP for webhooks and adapters: redirects are not followed (a 3xx is just a status), one
 * deadline covers connect, send and the response, and every connection goes through the SSRF guard on
 * the resolved address. Keep-alive agents so a busy receiver is not re-dialled per event.
 */
export class HttpSender {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(
    private readonly allowPrivate: boolean,
    resolve: Resolver,
  ) {
    const lookup = guardedLookup(resolve, allowPrivate);
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64, lookup } as http.AgentOptions);
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64, lookup } as https.AgentOptions);
  }

  send(req: SendRequest): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<SendResult>((resolvePromise) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (r: Omit<SendResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolvePromise({ ...r, latencyMs: elapsed() });
      };
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        return finish({ error: 'invalid URL' });
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return finish({ error: 'only http and https URLs are allowed' });
      const problem = literalHostProblem(url.hostname, this.allowPrivate);
      if (problem) return finish({ error: problem });

      const mod = url.protocol === 'https:' ? https : http;
      const headers: Record<string, string> = { ...req.headers };
      if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
      const request = mod.request(url, {
        method: req.method,
        headers,
        agent: url.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
      });
      timer = setTimeout(() => {
        request.destroy();
        finish({ error: `timeout after ${req.timeoutMs} ms` });
      }, req.timeoutMs);
      request.on('error', (err: Error) => finish({ error: err.message || String(err) }));
      request.on('response', (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_BODY_LIMIT) {
            const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - kept);
            chunks.push(part);
            kept += part.length;
          }
        });
        const done = () =>
          finish({
            statusCode: res.statusCode,
            retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined,
            responseBody: Buffer.concat(chunks).toString('utf8'),
          });
        res.on('end', done);
        res.on('error', done);
        res.on('aborted', done);
      });
      request.end(req.body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
