// The documented start commands can be stopped by a supervisor (docs/operations.md#running-under-a-supervisor):
// SIGTERM to `npm start` reaches the server, which closes and exits instead of
// being orphaned; the shipped systemd units run node directly and are valid.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { freshStorage, type Storage } from '../kit/harness.js';
import { REPO, builtProgram } from '../cli/process.js';

// Only a guard against a process that never exits: on a loaded CI machine every child takes seconds.
const SLOW = 600_000;

const run = promisify(execFile);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('SIGTERM to `npm start`', () => {
  let storage: Storage;
  before(async () => {
    storage = await freshStorage('sqlite');
    // `npm start` runs the built program (bin/tapproof.js → dist/), which `npm test` built first.
    builtProgram();
  });
  after(() => storage.drop());

  test('stops the server itself: it finishes, logs its final line and leaves no process behind', { timeout: SLOW }, async () => {
    const npm = spawn('npm', ['start'], {
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        LOG_LEVEL: 'info',
        PORT: '0',
        HOST: '127.0.0.1',
        TAPPROOF_EMBEDDED_WORKER: '0',
        ...storage.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    // 'exit', not 'close': an orphaned server would hold npm's output pipes open forever.
    const exited = new Promise<number | null>((resolve) => npm.on('exit', resolve));
    const listening = await new Promise<{ pid: number; address: string }>((resolve, reject) => {
      npm.stdout!.on('data', (c) => {
        out += c;
        const line = out.split('\n').find((l) => l.includes('"tapproof listening"'));
        if (line) resolve(JSON.parse(line));
      });
      void exited.then((code) => reject(new Error(`npm start exited (${code}) before listening: ${out}`)));
    });
    let serverPid = listening.pid;
    try {
      assert.notEqual(serverPid, npm.pid, 'npm runs the server as a child');
      assert.equal((await fetch(`${listening.address}/healthz`)).status, 200);
      npm.kill('SIGTERM');
      await exited;
      // npm returns once its child has exited: the server must be gone, not left running under init.
      assert.equal(alive(serverPid), false, 'the server process is gone');
      // Its last output may still be in the pipe when npm's exit is reported.
      if (!npm.stdout!.readableEnded) await new Promise((resolve) => npm.stdout!.once('end', resolve));
      assert.ok(out.includes('"tapproof stopped"'), out);
      await assert.rejects(fetch(`${listening.address}/healthz`), 'nothing listens any more');
      serverPid = 0;
    } finally {
      // Never leave an orphan behind, even when the assertion above failed.
      if (serverPid && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
    }
  });
});

describe('systemd units in deploy/', () => {
  for (const unit of ['tapproof.service', 'tapproof-worker.service']) {
    test(`${unit} runs node directly and stops with SIGTERM`, async () => {
      const text = readFileSync(join(REPO, 'deploy', unit), 'utf8');
      const exec = text.split('\n').find((l) => l.startsWith('ExecStart='))!;
      assert.match(exec, /^ExecStart=\/usr\/bin\/node \/opt\/tapproof\/bin\/tapproof\.js (serve|worker)$/);
      assert.ok(text.includes('\nKillSignal=SIGTERM\n'));
      assert.match(text, /\nTimeoutStopSec=\d+\n/);
      // Where systemd is installed, it must accept the unit as written.
      if (existsSync('/usr/bin/systemd-analyze') && existsSync('/usr/bin/node')) {
        const { stdout, stderr } = await run('systemd-analyze', ['verify', join(REPO, 'deploy', unit)]);
        assert.equal(stdout + stderr, '');
      }
    });
  }
});
