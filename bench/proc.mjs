// What a process has used so far, read from Linux's /proc: the benches' one reading of it.
import { readdirSync, readFileSync } from 'node:fs';

/**
 * A process's stat fields after its command's name (which is in brackets and may hold spaces), the state
 * first; undefined once the process has ended.
 */
function statOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds a process has used, user and system (its stat's fields 14 and 15, at 100 ticks a second);
 * with `children`, those of the processes it started too (the server's webhook delivery process, whose
 * time is the deliveries' as much as the server's own). 0 once it has ended.
 */
export function cpuSeconds(pid, { children = false } = {}) {
  const fields = statOf(pid);
  if (!fields) return 0;
  let total = (Number(fields[11]) + Number(fields[12])) / 100;
  if (!children) return total;
  for (const entry of readdirSync('/proc')) {
    // The parent's pid is the second field after the name.
    if (/^\d+$/.test(entry) && Number(statOf(entry)?.[1]) === pid) total += cpuSeconds(Number(entry), { children });
  }
  return total;
}

/** A process's resident memory in bytes (VmRSS of its status); 0 when it cannot be read. */
export function rssBytes(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}
