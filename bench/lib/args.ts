// Command-line flags shared by the benches: `--name value`.
import type { DatabaseKind } from './storage.js';

/** The value after `--name`, or `fallback` when the flag is absent. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

export function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

/** `--db sqlite|postgres|both` (default both). */
export function databaseKinds(): DatabaseKind[] {
  const value = arg('db', 'both');
  const kinds: string[] = value === 'both' ? ['sqlite', 'postgres'] : [value];
  if (!kinds.every((k) => k === 'sqlite' || k === 'postgres')) throw new Error('--db must be sqlite, postgres or both');
  return kinds as DatabaseKind[];
}
