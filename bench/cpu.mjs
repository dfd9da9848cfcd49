// CPU time of a benchmarked server, from Linux /proc: unlike a rate it hardly moves when something else loads the machine;
// and the node flags its process starts with, to profile it.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ: the unit of /proc/<pid>/stat's times on Linux

/** CPU seconds (user and system) used so far by `pid` and, apart, by its live descendants (Linux /proc). */
export function cpuOf(pid) {
  const seconds = (p) => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    } catch {
      return 0; // gone meanwhile
    }
  };
  const children = (p) => {
    const out = [];
    for (const task of readdirSync(`/proc/${p}/task`, { withFileTypes: true })) {
      try {
        out.push(...readFileSync(`/proc/${p}/task/${task.name}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
      } catch {}
    }
    return out;
  };
  let descendants = 0;
  const queue = children(pid);
  while (queue.length > 0) {
    const p = queue.shift();
    descendants += seconds(p);
    queue.push(...children(p));
  }
  return { own: seconds(pid), descendants };
}

/**
 * BENCH_SERVICE_ARGS, split: node flags for the benchmarked servers' processes only, never the client's,
 * e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof' or '--max-old-space-size=64'.
 */
export function serviceNodeFlags() {
  return (process.env.BENCH_SERVICE_ARGS ?? '').split(' ').filter(Boolean);
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc, ticks of 10 ms). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time (ms) so far of each local PostgreSQL process (none when no server runs here: a remote one, or SQLite). */
export function postgresCpu() {
  const byPid = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/stat`, 'utf8').includes('(postgres)')) byPid.set(pid, cpuMs(pid));
    } catch {
      // the process ended meanwhile
    }
  }
  return byPid;
}

/** PostgreSQL CPU used since `before` by the processes alive now (a connection closed meanwhile is left out). */
export function postgresCpuSince(before) {
  let sum = 0;
  for (const [pid, ms] of postgresCpu()) sum += ms - (before.get(pid) ?? 0);
  return sum;
}
