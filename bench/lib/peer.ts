// The stateless peer the verification bench compares with: nfc-developer/sdm-backend (Flask under uWSGI, 2 processes, HTTP/1.1
// keep-alive), which checks the same AES SUN message but stores nothing and checks no counter. Not
// part of the project: the bench runs it from a checkout given with --peer, so that both are measured
// on the same cores in the same run. Its default configuration (config.dist.py: legacy derivation,
// all-zero master key) makes every SDM key zero, the cheapest case for it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answering, freePort } from './server.js';
import { stopAll } from './tapproof.js';

export interface Peer {
  origin: string;
  /** uWSGI's master; its workers are its children. */
  pid: number;
  stop(): Promise<void>;
}

const PYTHON = '/usr/bin/python3';

/**
 * Debian's python3-pycryptodome installs the `Cryptodome` package; the peer imports `Crypto`. A
 * directory with `Crypto` linked to it, put on PYTHONPATH, bridges the two.
 */
function cryptoShim(): string | null {
  const probe = (module: string) => {
    try {
      return execFileSync(PYTHON, ['-c', `import ${module}, os; print(os.path.dirname(${module}.__file__))`], { encoding: 'utf8' }).trim();
    } catch {
      return null;
    }
  };
  if (probe('Crypto')) return null;
  const cryptodome = probe('Cryptodome');
  if (!cryptodome) throw new Error('the peer needs pycryptodome (Debian: python3-pycryptodome)');
  const dir = mkdtempSync(join(tmpdir(), 'peer-shim-'));
  symlinkSync(cryptodome, join(dir, 'Crypto'));
  return dir;
}

export async function startPeer(dir: string): Promise<Peer> {
  if (!existsSync(join(dir, 'app.py')) || !existsSync(join(dir, 'config.py'))) {
    throw new Error(`--peer ${dir}: expected a checkout of nfc-developer/sdm-backend with config.py (copy config.dist.py)`);
  }
  const port = await freePort();
  const shim = cryptoShim();
  const child: ChildProcess = spawn(
    'uwsgi',
    [
      '--plugin',
      'python3',
      '--http11-socket',
      `127.0.0.1:${port}`,
      '--processes',
      '2',
      '--master',
      '--module',
      'app',
      '--callable',
      'app',
      '--disable-logging',
      '--die-on-term',
    ],
    { cwd: dir, env: { ...process.env, PYTHONPATH: [shim, dir].filter(Boolean).join(':') }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const origin = `http://127.0.0.1:${port}`;
  // Any answer will do: the probe is not a valid SUN message.
  await answering(child, `${origin}/api/tag?picc_data=00&cmac=00`, () => true);
  return {
    origin,
    pid: child.pid!,
    stop: async () => {
      await stopAll([child]);
      if (shim) rmSync(shim, { recursive: true, force: true });
    },
  };
}
