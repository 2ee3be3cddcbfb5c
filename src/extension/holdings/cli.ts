// `tapproof holdings set|unset` (docs/decisions.md §7): the embedded provider's table.
import { CliError, output, parseMode } from '../../cli-kit.js';
import type { WithContext } from '../../cli-kit.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { Command } from 'commander';
import type { Mode } from '../../db/schema.js';
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../time.js';
import * as catalogRepo from '../catalog/repository.js';
import { setHolding, unsetHolding } from './repository.js';
import { canonicalAddress as canonicalOf } from './service.js';
import { cliActor, recordAudit, type AuditEntry } from '../../audit/index.js';

export function registerHoldingsCommands(program: Command, withContext: WithContext<Kernel & MastersState>): void {
  interface HoldingOptions {
    chain: string;
    address: string;
    token: string;
    quantity?: string;
    mode?: Mode;
    json?: boolean;
  }

  /** The address in the form proofs compare against: bech32 as given, or EIP-55. */
  function canonicalAddress(chain: string, address: string): string {
    if (chain !== 'cardano' && chain !== 'ethereum') throw new CliError('--chain must be cardano or ethereum');
    const canonical = canonicalOf(chain, address);
    if (canonical === null)
      throw new CliError(chain === 'cardano' ? `--address: not a Cardano Shelley address: ${address}` : `--address: not an Ethereum address: ${address}`);
    return canonical;
  }

  /** Runs `work` on the token's holdings in one transaction with its audit record (in the token's world). */
  async function checkedToken<T>(
    opts: HoldingOptions,
    work: (db: Executor, tokenId: string, address: string, clock: Clock) => Promise<{ result: T; entry: AuditEntry | null }>,
  ): Promise<T> {
    const address = canonicalAddress(opts.chain, opts.address);
    return withContext(async (ctx) => {
      const token = await catalogRepo.findToken(ctx.db.kysely, opts.token);
      if (!token || (opts.mode !== undefined && token.mode !== opts.mode)) throw new CliError(`no ${opts.mode ? opts.mode + ' ' : ''}token ${opts.token}`);
      if (token.chain !== opts.chain) throw new CliError(`token ${opts.token} is on ${token.chain}, not ${opts.chain}`);
      return ctx.db.kysely.transaction().execute(async (trx) => {
        const { result, entry } = await work(trx, token.id, address, ctx.clock);
        if (entry) await recordAudit(trx, { teamId: token.team_id, mode: token.mode, actor: cliActor() }, ctx.clock.nowMicros(), [entry]);
        return result;
      });
    });
  }

  const holdings = program.command('holdings').description('who holds which token, for the embedded holdings provider');
  const MODE = ['--mode <mode>', "sandbox or production: the mode the token must be of (default: the token's own)"] as const;
  holdings
    .command('set')
    .requiredOption('--chain <chain>', 'cardano or ethereum')
    .requiredOption('--address <address>', 'the wallet address')
    .requiredOption('--token <token_id>', 'the catalog token (tok_…)')
    .option('--quantity <n>', 'how many units the wallet holds (whole number ≥ 1)', '1')
    .option(...MODE, parseMode)
    .option('--json', 'machine-readable output')
    .action(async (opts: HoldingOptions) => {
      if (!/^\d{1,78}$/.test(opts.quantity!) || BigInt(opts.quantity!) < 1n)
        throw new CliError(`--quantity must be a whole number of at least 1, got "${opts.quantity}"`);
      const quantity = BigInt(opts.quantity!);
      const address = await checkedToken(opts, async (db, tokenId, address, clock) => {
        await setHolding(db, tokenId, address, quantity, clock);
        return { result: address, entry: { operation: 'holding.set', resourceId: tokenId, changes: { address, quantity: quantity.toString() } } };
      });
      output(!!opts.json, { token: opts.token, address, quantity: quantity.toString() }, `${address} holds ${quantity} of ${opts.token}`);
    });
  holdings
    .command('unset')
    .requiredOption('--chain <chain>', 'cardano or ethereum')
    .requiredOption('--address <address>', 'the wallet address')
    .requiredOption('--token <token_id>', 'the catalog token (tok_…)')
    .option(...MODE, parseMode)
    .option('--json', 'machine-readable output')
    .action(async (opts: HoldingOptions) => {
      const removed = await checkedToken(opts, async (db, tokenId, address) => {
        const result = await unsetHolding(db, tokenId, address);
        return { result, entry: result ? { operation: 'holding.unset', resourceId: tokenId, changes: { address } } : null };
      });
      if (!removed) throw new CliError(`${opts.address} holds no ${opts.token}`);
      output(
        !!opts.json,
        { token: opts.token, address: canonicalAddress(opts.chain, opts.address), removed: true },
        `removed ${opts.address}'s holding of ${opts.token}`,
      );
    });
}
