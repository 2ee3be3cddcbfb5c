// CPU time of processes and their threads, read from /proc (Linux): what a bench's server used while it was driven.
import { readFileSync, readdirSync } from 'node:fs';

/** A process and its descendants: the server with its --processes workers, uWSGI with its workers. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${out[i]}/task`)) {
        const children = readFileSync(`/proc/${out[i]}/task/${task}/children`, 'utf8').trim();
        if (children) out.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      /* gone */
    }
  }
  return out;
}

/** User + system CPU seconds in a /proc `stat` line (the fields after the parenthesized name). */
const statCpuSeconds = (stat: string) => {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** CPU seconds (user + system) the processes have used so far. */
export function cpuSeconds(pids: number[]): number {
  let seconds = 0;
  for (const pid of pids) {
    try {
      seconds += statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      /* gone */
    }
  }
  return seconds;
}

/** CPU seconds (user + system) of every thread of the processes, by "pid/tid name". */
export function threadSeconds(pids: number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        out.set(`${pid}/${tid} ${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}`, statCpuSeconds(stat));
      } catch {
        /* gone */
      }
    }
  }
  return out;
}

/** The busiest threads over a phase: "name share of the phase" (1.00 = one core all along). */
export function busiestThreads(before: Map<string, number>, after: Map<string, number>, seconds: number): string {
  return [...after]
    .map(([key, cpu]) => [key.split(' ').slice(1).join(' ') || key, (cpu - (before.get(key) ?? 0)) / seconds] as const)
    .filter(([, share]) => share >= 0.03)
    .sort((a, b) => b[1] - a[1])
    .map(([name, share]) => `${name} ${share.toFixed(2)}`)
    .join(', ');
}
