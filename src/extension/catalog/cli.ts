// `tapproof products create`, `tapproof tokens create`, `tapproof tags link`
// (docs/decisions.md §7). `--json` prints `{"id": …}`.
import { commandGroup, output, parseMode } from '../../cli-kit.js';
import type { WithContext } from '../../cli-kit.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { Command } from 'commander';
import type { Mode } from '../../db/schema.js';
import { createProduct, createToken, defaultCatalogMode, linkTag } from './service.js';
import { cliActor } from '../../audit/index.js';

export function registerCatalogCommands(program: Command, withContext: WithContext<Kernel & MastersState>): void {
  const MODE_HELP =
    "sandbox or production (the tags it links to must be of the same mode; default: the mode of the team's keys, production when it has keys of both modes or none)";

  /**
   * Creates in `--mode`, or else in the mode defaultCatalogMode picks; the line printed says the
   * mode, and why when the team's keys chose it or it was picked between two.
   */
  async function createIn(
    ctx: Kernel & MastersState,
    what: 'product' | 'token',
    team: string,
    given: Mode | undefined,
    create: (mode: Mode) => Promise<{ id: string }>,
  ): Promise<{ created: { id: string }; line: string }> {
    let mode = given;
    let why = '';
    if (mode === undefined) {
      const picked = await defaultCatalogMode(ctx, team);
      mode = picked.mode;
      if (picked.keyModes.length === 1) why = ` (the team's keys are all ${mode} keys)`;
      if (picked.keyModes.length > 1) why = ` (the team has keys of both modes; --mode sandbox makes a sandbox ${what})`;
    }
    const created = await create(mode);
    return { created, line: `created ${what} ${created.id} in ${mode} mode${why}` };
  }

  /** A whole-number flag stays a string when it is not one, so that the rules word the refusal. */
  const wholeNumber = (v: string): number | string => (/^-?\d+$/.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : v);

  const products = program.command('products').description('the product catalog shown by the extension API');
  products
    .command('create')
    .requiredOption('--team <team_id>', 'team the product belongs to')
    .option('--mode <mode>', MODE_HELP, parseMode)
    .requiredOption('--name <name>', 'product name')
    .option('--image-url <url>', 'absolute http(s) URL of a picture')
    .option('--description <text>', 'description')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const made = await withContext((ctx) =>
        createIn(ctx, 'product', opts.team, opts.mode, (mode) =>
          createProduct(ctx, { teamId: opts.team, mode, actor: cliActor() }, { name: opts.name, image_url: opts.imageUrl, description: opts.description }),
        ),
      );
      output(opts.json, made.created, made.line);
    });

  const tokens = program.command('tokens').description('the tokens whose holders can prove ownership of an item');
  tokens
    .command('create')
    .requiredOption('--team <team_id>', 'team the token belongs to')
    .option('--mode <mode>', MODE_HELP, parseMode)
    .requiredOption('--chain <chain>', 'cardano or ethereum')
    .requiredOption('--name <name>', 'token name')
    .requiredOption('--symbol <symbol>', 'ticker symbol')
    .requiredOption('--supply <n>', 'total supply (whole number)', wholeNumber)
    .option('--policy-id <hex>', 'cardano: minting policy id (56 hex)')
    .option('--asset-name <hex>', 'cardano: asset name (hex, up to 32 bytes)')
    .option('--contract <0x…>', 'ethereum: contract address')
    .option('--token-id <n>', 'ethereum: token id (erc721, erc1155)')
    .option('--standard <standard>', 'ethereum: erc721, erc1155 or erc20')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const raw = {
        chain: opts.chain,
        name: opts.name,
        symbol: opts.symbol,
        supply: opts.supply,
        policy_id: opts.policyId,
        asset_name: opts.assetName,
        contract_address: opts.contract,
        token_id: opts.tokenId,
        standard: opts.standard,
      };
      const made = await withContext((ctx) =>
        createIn(ctx, 'token', opts.team, opts.mode, (mode) => createToken(ctx, { teamId: opts.team, mode, actor: cliActor() }, raw)),
      );
      output(opts.json, made.created, made.line);
    });

  const tags = commandGroup(program, 'tags', 'manage tags');
  tags
    .command('link <tag_id>')
    .description("show a product and/or prove a token on the tag's verifications (extension API)")
    .option('--product <product_id>', 'prd_… of the same team and mode')
    .option('--token <token_id>', 'tok_… of the same team and mode')
    .option('--mode <mode>', "sandbox or production: the mode the tag must be of (default: the tag's own)", parseMode)
    .option('--json', 'machine-readable output')
    .action(async (tagId: string, opts) => {
      const link = await withContext((ctx) => linkTag(ctx, tagId, { product: opts.product, token: opts.token, mode: opts.mode }, cliActor()));
      output(opts.json, { id: link.id }, `linked tag ${link.id}: product ${link.product_id ?? 'none'}, token ${link.token_id ?? 'none'}`);
    });
}
