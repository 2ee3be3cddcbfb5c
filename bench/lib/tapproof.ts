// Running the real `tapproof` binary as a child process: from dist/ (after
// `npm run build`) or from the sources through tsx.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

export interface Launch {
  /** Run src/main.ts through tsx instead of dist/main.js. */
  tsx: boolean;
  /** Extra node flags (e.g. --max-old-space-size, --cpu-prof). */
  nodeArgs?: string[];
}

export function describeLaunch(launch: Launch): string {
  return launch.tsx ? 'node --import tsx src/main.ts' : 'node dist/main.js';
}

function argv(launch: Launch, args: string[]): string[] {
  const main = launch.tsx ? ['--import', 'tsx', join(ROOT, 'src/main.ts')] : [join(ROOT, 'dist/main.js')];
  return [...(launch.nodeArgs ?? []), ...main, ...args];
}

/** A long-running tapproof process (serve, worker) with the storage env; its output goes to ours. */
export function spawnTapproof(launch: Launch, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, argv(launch, args), { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** One CLI command with `--json`; returns its last output line parsed. */
export function runCli(launch: Launch, env: Record<string, string>, args: string[]): any {
  const out = execFileSync(process.execPath, argv(launch, [...args, '--json']), { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!);
}

/** SIGTERM the processes and wait until they have exited. */
export async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGTERM');
        }),
    ),
  );
}
