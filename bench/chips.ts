// Verifications per second of the pure chip cryptography on one core (this process, no workers).
// Run: npx tsx bench/chips.ts [seconds-per-case] [name filter]
// Writes bench/RESULTS-chips.md when no filter is given.
//
// The rate per CPU-second is the figure to compare: on a shared machine the wall-clock rate only says
// how much CPU this process happened to get.
//
// Each case pre-generates a pool of genuine taps with the emulator, then verifies them round-robin.
// "one chip" reuses one SDM file read key (its cipher stays cached); "10k chips" rotates through
// 10,000 distinct diversified file read keys, more than the cipher caches hold, so every
// verification pays the key setup as a first tap of a chip would.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diversifyAn10922 } from '../src/chips/diversify.js';
import { generateSun424, type Sun424Params } from '../src/chips/emulate.js';
import { generateSun223, verifySun223 } from '../src/chips/sun223.js';
import { verifySun424, type Sun424Input } from '../src/chips/sun424.js';
import type { Tamper } from '../src/chips/tamper.js';
import { machineLines, verdict } from './lib/machine.js';
import { ROOT } from './lib/tapproof.js';

const seconds = Number(process.argv[2] ?? 2);
const filter = process.argv[3] ?? '';
const metaKey = randomBytes(16);
const master = randomBytes(16);

type Case = { run: () => boolean };
type LazyCase = { name: string; make: () => Case };

function pool424(crypto: 'aes' | 'lrp', tamper: NonNullable<Tamper> | undefined, chips: number, size: number): Sun424Input[] {
  const keys = Array.from({ length: chips }, () => {
    const uid = Buffer.concat([Buffer.from([0x04]), randomBytes(6)]);
    return { uid, fileKey: diversifyAn10922(master, Buffer.concat([uid, Buffer.from('tapproof')])) };
  });
  const out: Sun424Input[] = [];
  for (let i = 0; i < size; i++) {
    const chip = keys[i % chips]!;
    const p: Sun424Params = generateSun424({
      crypto,
      uid: chip.uid,
      counter: i,
      sdmMetaReadKey: metaKey,
      sdmFileReadKey: chip.fileKey,
      tamper,
    });
    out.push({
      crypto,
      sdmMetaReadKey: metaKey,
      sdmFileReadKey: chip.fileKey,
      piccData: p.piccData,
      enc: p.enc,
      cmac: p.cmac,
      macInput: p.macInput,
      expectTamper: tamper !== undefined,
    });
  }
  return out;
}

function case424(inputs: Sun424Input[]): Case {
  let i = 0;
  return { run: () => verifySun424(inputs[i++ % inputs.length]!).ok };
}

function case223(chips: number, size: number): Case {
  const keys = Array.from({ length: chips }, () => ({ uid: randomBytes(7), key: randomBytes(16) }));
  const inputs = Array.from({ length: size }, (_, i) => {
    const c = keys[i % chips]!;
    return { key: c.key, sun: generateSun223({ key: c.key, uid: c.uid, counter: i, tamper: { permanent: 'closed', current: 'closed' } }) };
  });
  let i = 0;
  return { run: () => verifySun223(inputs[i++ % inputs.length]!).ok };
}

interface Result {
  name: string;
  perCpuSecond: number;
  perWallSecond: number;
}

function measure(name: string, c: Case): Result {
  for (let i = 0; i < 2000; i++) if (!c.run()) throw new Error(`${name}: a genuine tap did not verify`);
  let n = 0;
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(seconds * 1e9));
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let k = 0; k < 50; k++) if (!c.run()) throw new Error(`${name}: a genuine tap did not verify`);
    n += 50;
    elapsed = process.hrtime.bigint() - start;
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const perCpuSecond = n / cpuSeconds;
  const perWallSecond = (n / Number(elapsed)) * 1e9;
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US').padStart(9);
  console.log(`${name.padEnd(40)} ${fmt(perCpuSecond)} /CPU-s (${(1e6 / perCpuSecond).toFixed(1).padStart(6)} µs)   ${fmt(perWallSecond)} /wall-s`);
  return { name, perCpuSecond, perWallSecond };
}

const tt = (current: 'closed' | 'open'): NonNullable<Tamper> => ({ permanent: 'closed', current });
const cases: LazyCase[] = [
  { name: '424 AES (PICCData + CMAC), 1 chip', make: () => case424(pool424('aes', undefined, 1, 4096)) },
  { name: '424 AES (PICCData + CMAC), 10k chips', make: () => case424(pool424('aes', undefined, 10_000, 10_000)) },
  { name: '424 LRP (PICCData + CMAC), 1 chip', make: () => case424(pool424('lrp', undefined, 1, 256)) },
  { name: '424 LRP (PICCData + CMAC), 2k chips', make: () => case424(pool424('lrp', undefined, 2_000, 2_000)) },
  { name: '424 TT AES (+enc, tamper), 1 chip', make: () => case424(pool424('aes', tt('closed'), 1, 4096)) },
  { name: '424 TT AES (+enc, tamper), 10k chips', make: () => case424(pool424('aes', tt('open'), 10_000, 10_000)) },
  { name: '424 TT LRP (+enc, tamper), 1 chip', make: () => case424(pool424('lrp', tt('closed'), 1, 256)) },
  { name: '223 (SUN CMAC + TT), 1 chip', make: () => case223(1, 4096) },
  { name: '223 (SUN CMAC + TT), 10k chips', make: () => case223(10_000, 10_000) },
];

console.log(`node ${process.version}, ${seconds}s per case, one thread; rates per CPU-second of this process (GC threads included)`);
console.log('and per wall-clock second (lower when the machine is shared)');
const results: Result[] = [];
for (const c of cases) if (c.name.includes(filter)) results.push(measure(c.name, c.make()));

if (!filter) {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  // Target: the pure AES verification path at least 50,000 scans/s per core (bench/README.md); judged on the CPU-second rate.
  const aes = results.filter((r) => r.name.startsWith('424 AES'));
  const report = [
    '# Chip cryptography benchmark (crypto rate per core)',
    '',
    ...machineLines(),
    `- \`npx tsx bench/chips.ts ${seconds}\`: one thread, ${seconds} s per case after 2,000 warm-up verifications; genuine taps pre-generated by the emulator.`,
    '  "per CPU-second" (this process\'s user + system time, GC included) is the per-core rate; "per wall-second" is lower when the machine is shared.',
    '  "1 chip" keeps one file key\'s cipher cached; "10k chips" rotates through more diversified keys than the caches hold (a first tap each time).',
    '',
    '| Case | per CPU-second | µs per verification | per wall-second |',
    '|---|---:|---:|---:|',
    ...results.map((r) => `| ${r.name} | ${n(r.perCpuSecond)} | ${(1e6 / r.perCpuSecond).toFixed(1)} | ${n(r.perWallSecond)} |`),
    '',
    '## Targets',
    '',
    ...aes.map((r) => `- ${r.name}: ≥ 50,000 scans/s per core: ${n(r.perCpuSecond)}/CPU-s — ${verdict(r.perCpuSecond, 50_000, 'higher', '/s')}`),
    '',
  ];
  writeFileSync(join(ROOT, 'bench/RESULTS-chips.md'), report.join('\n'));
  console.log('wrote bench/RESULTS-chips.md');
}
