// Running the real `tapproof` program as child processes (CLI commands, `serve`).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

// The program as it is deployed (dist/, built by `npm test` and `npm ci`): a child started from the
// sources would spend twice the CPU on tsx and its loader, and the suite starts hundreds of them.
const PROGRAM = join(REPO, 'dist', 'main.js');

const newest = (dir: string): number =>
  Math.max(...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));

let checked = false;
/**
 * A build older than a source would test yesterday's program: refuse it with what to run. Tests never
 * build themselves: a build rewrites dist/ file by file while other shards start the program from it.
 */
export function builtProgram(): string {
  if (checked) return PROGRAM;
  let built = 0;
  try {
    built = statSync(PROGRAM).mtimeMs;
  } catch {
    // no build at all
  }
  if (built < newest(join(REPO, 'src'))) throw new Error('dist/ is older than src/: run `npm run build` (npm test builds first)');
  checked = true;
  return PROGRAM;
}

/** A clean environment: nothing of the test process's own config leaks into the child. */
function childEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env };
}

function tapproof(args: string[], env: Record<string, string>, nodeArgs: string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, builtProgram(), ...args], {
    cwd: REPO,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `tapproof <args>` to completion. */
export function runCli(env: Record<string, string>, ...args: string[]): Promise<Finished> {
  return finish(tapproof(args, env));
}

/** A failed `tapproof` run, as a rejection that still carries what it printed. */
export class CliFailed extends Error {
  constructor(readonly finished: Finished) {
    super(`tapproof exited with ${finished.code}: ${finished.stderr.trim()}`);
  }
  get code() {
    return this.finished.code;
  }
  get stdout() {
    return this.finished.stdout;
  }
  get stderr() {
    return this.finished.stderr;
  }
}

/**
 * `tapproof <args>` on a test server's storage (its database and data dir), quiet logs.
 * Resolves with its output when it exits 0, rejects with CliFailed otherwise.
 */
export async function cli(
  server: { storage: { env: Record<string, string> } },
  args: string[],
  options: { env?: Record<string, string>; nodeArgs?: string[] } = {},
): Promise<Finished> {
  const finished = await cliResult(server, args, options);
  if (finished.code !== 0) throw new CliFailed(finished);
  return finished;
}

/** The same, resolving whatever the exit code. */
export function cliResult(
  server: { storage: { env: Record<string, string> } },
  args: string[],
  options: { env?: Record<string, string>; nodeArgs?: string[] } = {},
): Promise<Finished> {
  return finish(tapproof(args, { ...server.storage.env, LOG_LEVEL: 'silent', ...options.env }, options.nodeArgs));
}

function finish(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServeProcess extends LongRunning {
  origin: string;
  /** `origin` + `/api/v1` */
  base: string;
}

/** A long-running `tapproof` command, once it printed `readyText`. */
export interface LongRunning {
  child: ChildProcess;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout contains `text`. */
  waitFor(text: string): Promise<void>;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

async function startLongRunning(args: string[], env: Record<string, string>, readyText: string): Promise<LongRunning> {
  const child = tapproof(args, env);
  let out = '';
  let err = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.stdout!.on('data', (c) => {
    out += c;
    for (const w of waiters.filter((w) => out.includes(w.text))) w.resolve();
  });
  child.stderr!.on('data', (c) => (err += c));
  const waitFor = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (out.includes(text)) return resolve();
      waiters.push({ text, resolve });
      void exited.then((code) => reject(new Error(`tapproof ${args[0]} exited (${code}) before printing "${text}"\n${out}\n${err}`)));
    });
  await waitFor(readyText);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Starts `tapproof serve [args]` on a free loopback port and waits until it (its first process) listens. */
export async function startServe(env: Record<string, string>, args: string[] = []): Promise<ServeProcess> {
  const started = await startLongRunning(
    ['serve', ...args],
    { PORT: '0', HOST: '127.0.0.1', TAPPROOF_EMBEDDED_WORKER: '0', ...env, LOG_LEVEL: 'info' },
    'tapproof listening',
  );
  const line = started
    .stdout()
    .split('\n')
    .find((l) => l.includes('tapproof listening'))!;
  const origin = JSON.parse(line).address as string;
  return { ...started, origin, base: origin + '/api/v1' };
}

/** Starts `tapproof worker` and waits until it is ready. */
export function startWorker(env: Record<string, string>): Promise<LongRunning> {
  return startLongRunning(['worker'], env, 'tapproof worker ready');
}

/** Starts `tapproof emulator reader TAG --json [args]` and waits until its card is in pcscd's virtual reader. */
export function startEmulatorReader(env: Record<string, string>, tagId: string, args: string[] = []): Promise<LongRunning> {
  return startLongRunning(['emulator', 'reader', tagId, '--json', ...args], env, '"reader"');
}
