// CPU time of a benchmarked server, from Linux /proc: unlike a rate it hardly moves when something else loads the machine.
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
