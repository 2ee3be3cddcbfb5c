// A real local Ethereum chain for the tests: anvil from npm, on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createPublicClient, createWalletClient, getAddress, http, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

const require = createRequire(import.meta.url);
const ANVIL = join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');

/** anvil's well-known development accounts #0 (deployer) and #1 (first holder): public test keys. */
export const DEPLOYER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
export const HOLDER = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

export interface Anvil {
  url: string;
  client: PublicClient;
  deploy(artifact: string, args: unknown[]): Promise<`0x${string}`>;
  /** Deploys raw creation code (a contract with no OpenZeppelin artifact). */
  deployCode(bytecode: Hex): Promise<`0x${string}`>;
  /** A transaction from `from` (the deployer by default). */
  write(address: `0x${string}`, artifact: string, functionName: string, args: unknown[], from?: PrivateKeyAccount): Promise<void>;
  setCode(address: `0x${string}`, code: Hex): Promise<void>;
  stop(): Promise<void>;
}

function artifact(name: string): { abi: any[]; bytecode: Hex } {
  return require(`@openzeppelin/contracts/build/contracts/${name}.json`);
}

export async function startAnvil(): Promise<Anvil> {
  const child: ChildProcess = spawn(ANVIL, ['--port', '0', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /Listening on (\S+)/.exec(out);
      if (m) resolve(`http://${m[1]}`);
    });
    child.on('exit', (code) => reject(new Error(`anvil exited ${code}: ${out}`)));
  });
  const transport = http(url);
  const client = createPublicClient({ chain: foundry, transport }) as PublicClient;
  const wallet = createWalletClient({ chain: foundry, transport, account: DEPLOYER });
  return {
    url,
    client,
    async deploy(name, args) {
      const { abi, bytecode } = artifact(name);
      const hash = await wallet.deployContract({ abi, bytecode, args });
      return getAddress((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).contractAddress!);
    },
    async deployCode(bytecode) {
      const hash = await wallet.deployContract({ abi: [], bytecode });
      return getAddress((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).contractAddress!);
    },
    async write(address, name, functionName, args, from = DEPLOYER) {
      const hash = await createWalletClient({ chain: foundry, transport, account: from }).writeContract({
        address,
        abi: artifact(name).abi,
        functionName,
        args,
      });
      await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    },
    async setCode(address, code) {
      await client.request({ method: 'anvil_setCode' as never, params: [address, code] as never });
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
