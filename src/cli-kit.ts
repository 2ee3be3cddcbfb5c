// What every command of the `tapproof` CLI shares: its output helpers and the
// types its registration points take. Feature commands register on the program the
// composition root (src/cli.ts) gives them.
import { InvalidArgumentError, type Command } from 'commander';
import pino, { type Logger } from 'pino';
import type { Mode } from './db/schema.js';

/** Columns padded to their widest cell, two spaces apart, the first line a header. */
export function table(lines: string[][]): string {
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines
    .map((l) =>
      l
        .map((cell, i) => (i === l.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The command `name` under which several features register subcommands (`tags`): made by the first that asks. */
export function commandGroup(program: Command, name: string, description: string): Command {
  return program.commands.find((c) => c.name() === name) ?? program.command(name).description(description);
}

/**
 * The log of a one-shot command: its results are stdout's (`URL=$(tapproof tags tap …)` must read the URL
 * alone), so what the platform logs goes to stderr, a warning or an error as one `tapproof: WARNING: …` line.
 */
export function commandLog(level: string): Logger {
  return pino(
    { level },
    {
      write(line: string) {
        const { level: n, msg } = JSON.parse(line) as { level: number; msg?: string };
        if (n >= 40) process.stderr.write(`tapproof: ${n >= 50 ? 'ERROR' : 'WARNING'}: ${msg ?? ''}\n`);
      },
    },
  );
}

let awaited = 'the command';

/**
 * Names what the command waits for next (`the database's migrations`), for the line that says why a command
 * whose work can never settle could not finish (src/cli.ts, main): such a command would otherwise end with
 * Node's exit code 13 and no word.
 */
export function waitingFor(what: string): void {
  awaited = what;
}

/** What the command waits for now (waitingFor). */
export function awaitedNow(): string {
  return awaited;
}

/** A failure the operator caused: printed as one line, exit code 1. */
export class CliError extends Error {}

export function parseProcesses(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 64) throw new InvalidArgumentError('must be a whole number from 1 to 64');
  return Number(value);
}

export function parseMode(value: string): Mode {
  if (value !== 'sandbox' && value !== 'production') throw new InvalidArgumentError('must be sandbox or production');
  return value;
}

/** Prints `value` as JSON with --json, else the human line. */
export function output(json: boolean, value: unknown, human: string): void {
  process.stdout.write((json ? JSON.stringify(value) : human) + '\n');
}

/**
 * Runs `work` with an open, migrated database and closes it afterwards. Commands that touch
 * chips or sealed secrets (the default) first check this process's master keys against the
 * database's. `C` is the part of the context a feature's commands use.
 */
export type WithContext<C> = <T>(work: (ctx: C) => Promise<T>, options?: { touchesKeys?: boolean }) => Promise<T>;
