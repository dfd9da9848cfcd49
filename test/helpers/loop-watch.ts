import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** What a watched stretch of work cost everyone else (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop). */
export interface LoopWindow {
  readonly label: string;
  /** The slowest answer of `GET /healthz`, probed one after another (10 ms apart) while the work ran. */
  readonly healthzMs: number;
  readonly probes: number;
  /** Probes that got no 200 (refused, reset, timed out). */
  readonly failedProbes: number;
  /** The service's own measure: prom-client's `nodejs_eventloop_lag_max_seconds` over the stretch. */
  readonly loopMs: number;
  /**
   * CPU time the service's main thread (its event loop) used over the stretch, from Linux's
   * /proc/<pid>/task/<pid>/stat, 10 ms resolution; when the watch was given the pid. Unlike the delay
   * it does not grow while a loaded machine leaves the service unscheduled.
   */
  readonly loopCpuMs?: number;
}

/** The CPU time (user + system) the main thread of process `pid` has used, in ms; undefined off Linux. */
export function mainThreadCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the fields after the command name (which may hold spaces, in parentheses): utime and stime are 14 and 15
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * 10 : undefined; // USER_HZ is 100 on Linux
}

// The prober runs in a thread of its own, so the test's own work (building an 8 MB mail, parsing
// answers) cannot delay the timing of a probe: what it measures is the service's answer time.
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const url = new URL('/healthz', workerData.base);
let worst = 0, probes = 0, failed = 0, take = false, stop = false;
function once() {
  const started = performance.now();
  let finished = false;
  const done = (ok) => {
    if (finished) return;
    finished = true;
    worst = Math.max(worst, performance.now() - started);
    probes++;
    if (!ok) failed++;
    if (take) {
      take = false;
      parentPort.postMessage({ worst, probes, failed });
      worst = 0; probes = 0; failed = 0;
    }
    if (stop) { agent.destroy(); parentPort.close(); return; }
    setTimeout(once, 10);
  };
  const req = http.get(url, { agent, timeout: 120000 }, (res) => {
    res.resume();
    res.on('end', () => done(res.statusCode === 200));
    res.on('error', () => done(false));
  });
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', () => done(false));
}
parentPort.on('message', (m) => {
  if (m === 'mark') { worst = 0; probes = 0; failed = 0; }
  else if (m === 'take') take = true;
  else if (m === 'stop') stop = true;
});
once();
`;

/**
 * Watches a running svc process while work is done against it: its `/healthz` answer times (from a
 * worker thread) and its own event-loop delay read from `/metrics`. prom-client resets the delay
 * histogram at every scrape, so a scrape before the work and one after it give the worst delay of
 * that stretch alone.
 */
export class LoopWatch {
  private readonly worker: Worker;

  constructor(
    private readonly base: string,
    private readonly metricsToken: string,
    /** The service's process id: windows then say what CPU its main thread used (loopCpuMs). */
    private readonly pid?: number,
  ) {
    this.worker = new Worker(PROBER, { eval: true, workerData: { base } });
  }

  /** The worst event-loop delay since the previous scrape, in ms. */
  async loopLagMs(): Promise<number> {
    const res = await fetch(`${this.base}/metrics`, { headers: { authorization: `Bearer ${this.metricsToken}` }, signal: AbortSignal.timeout(120_000) });
    const text = await res.text();
    const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text);
    if (res.status !== 200 || !m?.[1]) throw new Error(`GET /metrics answered ${res.status} without nodejs_eventloop_lag_max_seconds`);
    return Number(m[1]) * 1000;
  }

  /** Runs `work` and answers what it cost everyone else. */
  async watch<T>(label: string, work: () => Promise<T>): Promise<{ result: T; window: LoopWindow }> {
    // The probes' stretch encloses the service's own (reset ... scrape), so both see the same work.
    await this.loopLagMs();
    this.worker.postMessage('mark');
    // Node's delay monitor (10 ms resolution) drops its first interval after a reset: let it tick a few
    // times first, or a stall starting at once would go unrecorded. There is no event to wait for.
    await new Promise((r) => setTimeout(r, 40));
    const cpuBefore = this.pid === undefined ? undefined : mainThreadCpuMs(this.pid);
    const result = await work();
    const cpuAfter = this.pid === undefined ? undefined : mainThreadCpuMs(this.pid);
    const loopMs = await this.loopLagMs();
    const probed = await this.take();
    const loopCpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    return { result, window: { label, healthzMs: probed.worst, probes: probed.probes, failedProbes: probed.failed, loopMs, ...(loopCpuMs === undefined ? {} : { loopCpuMs }) } };
  }

  /** The probes since the mark, once the one in flight has answered. */
  private take(): Promise<{ worst: number; probes: number; failed: number }> {
    return new Promise((resolve) => {
      this.worker.once('message', resolve);
      this.worker.postMessage('take');
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

/** One line per window, worst first: for failure messages and the run's log. */
export function describeWindows(windows: readonly LoopWindow[]): string {
  return [...windows]
    .sort((a, b) => Math.max(b.healthzMs, b.loopMs) - Math.max(a.healthzMs, a.loopMs))
    .map(
      (w) =>
        `${w.label}: /healthz worst ${w.healthzMs.toFixed(0)} ms over ${w.probes} probes${w.failedProbes ? ` (${w.failedProbes} failed)` : ''}, event loop max ${w.loopMs.toFixed(0)} ms${w.loopCpuMs === undefined ? '' : `, main thread CPU ${w.loopCpuMs} ms`}`,
    )
    .join('\n');
}
