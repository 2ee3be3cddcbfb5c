// The machine a bench ran on, for the header of its RESULTS file.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

const LOAD_AT_START = loadavg();

function nproc(): string {
  try {
    return execFileSync('nproc', { encoding: 'utf8' }).trim();
  } catch {
    return String(cpus().length);
  }
}

function totalMemGiB(): number {
  const kb = Number(/MemTotal:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0);
  return Math.round((kb * 1024) / 2 ** 30);
}

const fmt = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');

/**
 * Two Markdown list items: date and load average (1/5/15 min) when the bench
 * process started and now; nproc, CPU model, RAM and Node version.
 */
export function machineLines(): string[] {
  return [
    `- Date: ${new Date().toISOString()}; load average at start ${fmt(LOAD_AT_START)}, at end ${fmt(loadavg())} (other processes on the machine skew the numbers; a load above ${nproc()} means they competed for the cores)`,
    `- Machine: nproc ${nproc()}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${totalMemGiB()} GiB RAM; Node ${process.version}`,
  ];
}

/** "met" or "**missed**" with the margin: how far the value is from the limit. */
export function verdict(value: number, limit: number, better: 'higher' | 'lower', unit = ''): string {
  const ok = better === 'higher' ? value >= limit : value <= limit;
  const margin = Math.abs(value - limit);
  const pct = limit ? ` (${((margin / limit) * 100).toFixed(0)}%)` : '';
  const side = ok ? (better === 'higher' ? 'above' : 'below') : better === 'higher' ? 'short' : 'over';
  return `${ok ? 'met' : '**missed**'}, ${round(margin)}${unit}${pct} ${side}`;
}

function round(n: number): string {
  return Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : String(Math.round(n * 10) / 10);
}
