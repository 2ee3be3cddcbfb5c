// Extension API benchmark, short: against the REAL server (a child
// process), GET /ext/verifications/{id} req/s as a ratio to /healthz in the same
// run, and proofs per second with p99 (Cardano CIP-30 and Ethereum
// personal_sign, embedded holdings) at 10 connections. Targets: lookup ≥ 0.3 of /healthz on SQLite;
// proof p99 ≤ 20 ms.
//
//   npx tsx bench/ext.ts [--db sqlite|postgres] [--duration 5] [--proofs 1000] [--warmup 50] [--cpu-prof DIR]
//
// Each chain's proofs are sent 10 at a time; the first --warmup of them are the
// cold start (the server's first proofs of that chain since it started) and are
// reported apart (their max), so p50/p90/p99 describe the steady state.
//
// --cpu-prof writes the server's CPU profile (node --cpu-prof) into DIR.
//
// Writes bench/RESULTS-ext.md.
import { load } from './lib/load.js';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { generateSun424 } from '../src/chips/index.js';
import { arg } from './lib/args.js';
import { machineLines, verdict } from './lib/machine.js';
import { startServer } from './lib/server.js';
import { freshStorage, type DatabaseKind } from './lib/storage.js';
import { ROOT, runCli, type Launch } from './lib/tapproof.js';
import { cardanoWallet } from '../test/extension/wallets.js';

const KIND = arg('db', 'sqlite') as DatabaseKind;
const DURATION = Number(arg('duration', '5'));
const PROOFS = Number(arg('proofs', '1000'));
const WARMUP = Number(arg('warmup', '50'));
const CONNECTIONS = 10;
const PROFILE_DIR = arg('cpu-prof', '');
const LAUNCH: Launch = { tsx: true };

const storage = await freshStorage(KIND);
const env = { ...storage.env, TAPPROOF_MASTER_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn' };
const team = runCli(LAUNCH, env, ['teams', 'create', '--name', 'bench']).id as string;
const key = runCli(LAUNCH, env, ['keys', 'create', '--team', team, '--mode', 'production']).key as string;

const ethereumOwner = privateKeyToAccount(generatePrivateKey());
const cardanoOwner = cardanoWallet();
const tokens: Record<string, string> = {
  cardano: runCli(LAUNCH, env, [
    'tokens',
    'create',
    '--team',
    team,
    '--chain',
    'cardano',
    '--policy-id',
    'ab'.repeat(28),
    '--asset-name',
    '01',
    '--name',
    'Bench',
    '--symbol',
    'BNC',
    '--supply',
    '1',
  ]).id,
  ethereum: runCli(LAUNCH, env, [
    'tokens',
    'create',
    '--team',
    team,
    '--chain',
    'ethereum',
    '--contract',
    '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    '--token-id',
    '1',
    '--standard',
    'erc721',
    '--name',
    'Bench',
    '--symbol',
    'BNC',
    '--supply',
    '1',
  ]).id,
};
runCli(LAUNCH, env, ['holdings', 'set', '--chain', 'cardano', '--address', cardanoOwner.address, '--token', tokens.cardano!]);
runCli(LAUNCH, env, ['holdings', 'set', '--chain', 'ethereum', '--address', ethereumOwner.address, '--token', tokens.ethereum!]);

// One production chip per token kind, imported with its catalog entries.
const chips = (['cardano', 'ethereum'] as const).map((chain) => ({
  chain,
  meta: randomBytes(16),
  file: randomBytes(16),
  uid: Buffer.from('04' + randomBytes(6).toString('hex'), 'hex'),
  url: `https://bench.example/${chain}`,
}));
const chipsFile = join(storage.env.TAPPROOF_DATA_DIR!, 'chips.json');
writeFileSync(
  chipsFile,
  JSON.stringify(
    chips.map((c) => ({
      url: c.url,
      protocol: 'ntag_424_dna',
      uid: c.uid.toString('hex'),
      sdm_meta_read_key: c.meta.toString('hex'),
      sdm_file_read_key: c.file.toString('hex'),
      product: { name: `Bench ${c.chain}`, image_url: 'https://bench.example/p.png', description: 'bench' },
      token: tokens[c.chain],
    })),
  ),
);
runCli(LAUNCH, env, ['tags', 'import', '--team', team, '--mode', 'production', '--file', chipsFile]);

const server = await startServer(PROFILE_DIR ? { ...LAUNCH, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] } : LAUNCH, env);
const lines: string[] = [];
try {
  const scanned: Record<string, string> = {};
  for (const c of chips) {
    const s = generateSun424({ crypto: 'aes', uid: c.uid, counter: 1, sdmMetaReadKey: c.meta, sdmFileReadKey: c.file });
    const res = await fetch(`${server.base}/verifications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'verifications', attributes: { url: `${c.url}?picc_data=${s.piccData}&cmac=${s.cmac}` } } }),
    });
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    scanned[c.chain] = `VRF_${id.slice(4)}`;
  }

  const run = (path: string) => load({ url: server.origin + path, connections: CONNECTIONS, duration: DURATION }, `GET ${path}`);
  const health = await run('/healthz');
  const lookup = await run(`/ext/verifications/${scanned.cardano}`);
  if (lookup.non2xx > 0 || lookup.errors > 0) throw new Error(`lookup answered ${lookup.non2xx} non-2xx`);
  const ratio = lookup.requests.average / health.requests.average;

  // Proofs: a verification records one owner, so every proof gets its own scan
  // and challenge, made and signed beforehand; then sent 10 at a time.
  const scanOnce = async (c: (typeof chips)[number], counter: number) => {
    const s = generateSun424({ crypto: 'aes', uid: c.uid, counter, sdmMetaReadKey: c.meta, sdmFileReadKey: c.file });
    const res = await fetch(`${server.base}/verifications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'verifications', attributes: { url: `${c.url}?picc_data=${s.piccData}&cmac=${s.cmac}` } } }),
    });
    return `VRF_${((await res.json()) as { data: { id: string } }).data.id.slice(4)}`;
  };
  const proofRows: string[] = [];
  for (const c of chips) {
    const prepared: { path: string; body: string }[] = [];
    for (let i = 0; i < WARMUP + PROOFS; i++) {
      const path = `/ext/verifications/${await scanOnce(c, i + 2)}`;
      const challengeBody = c.chain === 'ethereum' ? JSON.stringify({ address: ethereumOwner.address }) : '{}';
      const ch = (await (
        await fetch(server.origin + path + '/challenge', { method: 'POST', headers: { 'content-type': 'application/json' }, body: challengeBody })
      ).json()) as { session_id: string; message: string };
      const body =
        c.chain === 'ethereum'
          ? { session_id: ch.session_id, address: ethereumOwner.address, signature: await ethereumOwner.signMessage({ message: ch.message }) }
          : { session_id: ch.session_id, address: cardanoOwner.address, ...cardanoOwner.signData(ch.message), blockchain_type: 'cardano' };
      prepared.push({ path: path + '/proof', body: JSON.stringify(body) });
    }
    const statuses = new Map<string, number>();
    const send = async (batch: typeof prepared) => {
      const latencies: number[] = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (next < batch.length) {
            const { path, body } = batch[next++]!;
            const t = performance.now();
            const res = await fetch(server.origin + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
            const text = await res.text();
            latencies.push(performance.now() - t);
            const label = res.status === 200 ? '200' : `${res.status} ${(JSON.parse(text) as { error: string }).error}`;
            statuses.set(label, (statuses.get(label) ?? 0) + 1);
          }
        }),
      );
      return { seconds: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b) };
    };
    const cold = await send(prepared.slice(0, WARMUP));
    const { seconds, latencies } = await send(prepared.slice(WARMUP));
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    const coldMax = cold.latencies.at(-1);
    proofRows.push(
      `| ${c.chain} proofs (embedded holdings) | ${(PROOFS / seconds).toFixed(0)} /s, p50 ${p(0.5).toFixed(1)} ms, p90 ${p(0.9).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms — target p99 ≤ 20 ms: ${verdict(p(0.99), 20, 'lower', ' ms')}; cold start (first ${WARMUP}, not counted): max ${coldMax === undefined ? '—' : coldMax.toFixed(1)} ms; answers ${[...statuses].map(([k, v]) => `${v} × ${k}`).join(', ')} |`,
    );
  }

  lines.push(
    `# Extension API benchmark (${KIND})`,
    '',
    ...machineLines(),
    `- Command: \`npx tsx bench/ext.ts --db ${KIND} --duration ${DURATION} --proofs ${PROOFS} --warmup ${WARMUP}\` (server from the sources through tsx, ${CONNECTIONS} connections)`,
    '',
    '| Measure | Value |',
    '|---|---|',
    `| GET /healthz | ${health.requests.average.toFixed(0)} req/s (p99 ${health.latency.p99} ms) |`,
    `| GET /ext/verifications/{VRF_ id} | ${lookup.requests.average.toFixed(0)} req/s (p99 ${lookup.latency.p99} ms) |`,
    `| lookup / healthz | ${ratio.toFixed(3)} — target ≥ 0.3: ${verdict(ratio, 0.3, 'higher')} |`,
    ...proofRows,
    '',
  );
  console.log(lines.join('\n'));
  writeFileSync(join(ROOT, 'bench/RESULTS-ext.md'), lines.join('\n'));
} finally {
  await server.stop();
  await storage.drop();
}
