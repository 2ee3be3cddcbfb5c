// `tapproof master …`: the generations of the master keys (docs/operations.md, Master keys): rotate to a
// new current generation, rewrap sealed values under it, watch what still depends on the older ones,
// and retire them.
import { InvalidArgumentError, type Command } from 'commander';
import { output, parseMode, table, type WithContext } from '../cli-kit.js';
import type { Mode } from '../db/schema.js';
import type { Kernel } from '../kernel.js';
import type { MastersState } from './masters.js';
import { retire } from './retire.js';
import { rewrap } from './rewrap.js';
import { rotate } from './rotate.js';
import { generationStatus } from './status.js';
import { cliActor } from '../audit/index.js';

const wholeNumber = (min: number, max: number) => (value: string) => {
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
  return Number(value);
};

export function registerMasterCommands(program: Command, withContext: WithContext<Kernel & MastersState>): void {
  const master = program.command('master').description('master key generations: rotate, rewrap, status, retire');

  master
    .command('status')
    .description('each master key generation: its check value, whether it is current, and the chips and sealed values that depend on it')
    .option('--mode <mode>', 'only this mode: sandbox or production', parseMode)
    .option('--json', 'machine-readable output')
    .action(async (opts: { mode?: Mode; json?: boolean }) => {
      // Touches no key: it must answer on a host that lacks one, which is when it is needed.
      const rows = await withContext((ctx) => generationStatus(ctx.db.kysely, opts.mode ? [opts.mode] : ['sandbox', 'production']), { touchesKeys: false });
      const columns = ['mode', 'generation', 'current', 'retired', 'check_value', 'chips', 'sealed'] as const;
      const human = rows.length === 0 ? 'no master key generation recorded yet' : table([[...columns], ...rows.map((r) => columns.map((c) => String(r[c])))]);
      output(opts.json === true, rows, human);
    });

  master
    .command('rotate')
    .description('make a new current generation: production takes TAPPROOF_MASTER_KEY, the sandbox (and the generated SQLite production file) makes one')
    .requiredOption('--mode <mode>', 'sandbox or production', parseMode)
    .option('--json', 'machine-readable output')
    .action(async (opts: { mode: Mode; json?: boolean }) => {
      // The new key is no recorded generation yet: the start-up check would refuse it.
      const done = await withContext((ctx) => rotate(ctx, opts.mode, cliActor()), { touchesKeys: false });
      const human = done.rotated
        ? `${opts.mode} master key generation ${done.generation} (check value ${done.check_value}) is current: new chips and secrets use it. Next: tapproof master rewrap --mode ${opts.mode}`
        : `${opts.mode} master key generation ${done.generation} (check value ${done.check_value}) already is current`;
      output(opts.json === true, { mode: opts.mode, ...done }, human);
    });

  master
    .command('rewrap')
    .description('seal every value sealed under an older generation again under the current one (online, resumable)')
    .requiredOption('--mode <mode>', 'sandbox or production', parseMode)
    .option('--batch <n>', 'rows per transaction', wholeNumber(1, 10_000), 500)
    .option('--pause <ms>', 'pause between batches, to spare a busy database', wholeNumber(0, 60_000), 0)
    .option('--json', 'machine-readable output')
    .action(async (opts: { mode: Mode; batch: number; pause: number; json?: boolean }) => {
      const done = await withContext((ctx) =>
        rewrap(ctx, opts.mode, cliActor(), {
          batch: opts.batch,
          pauseMs: opts.pause,
          progress: opts.json ? undefined : (name, n) => process.stderr.write(`${name}: ${n} rewrapped\n`),
        }),
      );
      const total = Object.values(done.rewrapped).reduce((a, b) => a + b, 0);
      const skipped = done.unreadable.map((u) => `\ncannot open ${u.table} ${u.id}: ${u.reason}`).join('');
      output(
        opts.json === true,
        { mode: opts.mode, ...done },
        `${total} sealed rows now under ${opts.mode} master key generation ${done.generation}${skipped}`,
      );
      if (done.unreadable.length > 0) process.exitCode = 1;
    });

  master
    .command('retire')
    .description('forget a generation nothing depends on any more (refused while chips or sealed values do)')
    .requiredOption('--mode <mode>', 'sandbox or production', parseMode)
    .requiredOption('--generation <n>', 'the generation to retire', wholeNumber(1, 1_000_000))
    .option('--json', 'machine-readable output')
    .action(async (opts: { mode: Mode; generation: number; json?: boolean }) => {
      const done = await withContext((ctx) => retire(ctx, opts.mode, opts.generation, cliActor()), { touchesKeys: false });
      const human = done.retired
        ? `retired ${opts.mode} master key generation ${done.generation} (check value ${done.check_value}): remove its key from TAPPROOF_PREVIOUS_MASTER_KEYS`
        : `${opts.mode} master key generation ${done.generation} already is retired`;
      output(opts.json === true, { mode: opts.mode, ...done }, human);
    });
}
