// Resident set size of a child process, read from /proc.
import { readFileSync } from 'node:fs';

export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Peak VmRSS of processes, sampled every `everyMs`; `phase()` starts a new per-phase peak. */
export class RssSampler {
  overall = 0;
  current = 0;
  private timer: NodeJS.Timeout;
  constructor(
    private readonly pids: number[],
    everyMs = 50,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
  }
  sample(): number {
    const mb = Math.max(0, ...this.pids.map(rssMiB));
    this.overall = Math.max(this.overall, mb);
    this.current = Math.max(this.current, mb);
    return mb;
  }
  phase(): void {
    this.current = this.sample();
  }
  stop(): void {
    clearInterval(this.timer);
  }
}
