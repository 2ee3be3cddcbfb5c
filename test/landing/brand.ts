// The example brand server (examples/landing/server.js), run as a brand runs it: `node server.js` with
// the tapproof URL and the brand's key in its environment, on a free port.
import { spawn } from 'node:child_process';
import { REPO } from '../cli/process.js';

export interface BrandServer {
  origin: string;
  stop(): Promise<void>;
}

export async function startBrand(tapproofOrigin: string, key: string): Promise<BrandServer> {
  const child = spawn(process.execPath, ['examples/landing/server.js'], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', TAPPROOF_URL: tapproofOrigin, TAPPROOF_KEY: key, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const m = /landing on (\S+)/.exec(output);
      if (m) resolve(m[1]!);
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => reject(new Error(`the brand server exited ${code}: ${output}`)));
  });
  return {
    origin,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
