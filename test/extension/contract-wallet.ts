// A minimal EIP-1271 smart-contract wallet for the anvil tests: its code answers
// `isValidSignature(bytes32 hash, bytes signature)` with the magic value
// 0x1626ba7e when the 65-byte signature recovers (ecrecover precompile) to its
// owner, else 0xffffffff. OpenZeppelin 4.9's build artifacts hold no EIP-1271
// wallet, so the code is assembled here; the tests put it behind OpenZeppelin's
// ERC1967Proxy, as wallets such as Safe sit behind a proxy. The owner is a
// constant of the code, so it reads the same through the proxy's delegatecall.
import type { Hex } from 'viem';

type Op = string | { push: string } | { label: string } | { jump: string };

const OPCODES: Record<string, number> = {
  ADD: 0x01,
  EQ: 0x14,
  ISZERO: 0x15,
  BYTE: 0x1a,
  SHL: 0x1b,
  SHR: 0x1c,
  CALLDATALOAD: 0x35,
  CODECOPY: 0x39,
  POP: 0x50,
  MLOAD: 0x51,
  MSTORE: 0x52,
  JUMPI: 0x57,
  JUMPDEST: 0x5b,
  GAS: 0x5a,
  DUP1: 0x80,
  RETURN: 0xf3,
  STATICCALL: 0xfa,
  REVERT: 0xfd,
};

/** Bytes of `ops`; `{jump: L}` pushes the offset of `{label: L}` (one byte: the code is short). */
function assemble(ops: Op[]): string {
  const sizeOf = (op: Op) => (typeof op === 'string' ? 1 : 'push' in op ? 1 + op.push.length / 2 : 'jump' in op ? 2 : 1);
  const labels = new Map<string, number>();
  ops.reduce((offset, op) => {
    if (typeof op === 'object' && 'label' in op) labels.set(op.label, offset);
    return offset + sizeOf(op);
  }, 0);
  const byte = (n: number) => n.toString(16).padStart(2, '0');
  return ops
    .map((op) => {
      if (typeof op === 'string') return byte(OPCODES[op]!);
      if ('push' in op) return byte(0x5f + op.push.length / 2) + op.push;
      if ('jump' in op) return '60' + byte(labels.get(op.jump)!);
      return byte(OPCODES.JUMPDEST!);
    })
    .join('');
}

const answer = (magic: string): Op[] => [{ push: magic }, { push: 'e0' }, 'SHL', { push: '00' }, 'MSTORE', { push: '20' }, { push: '00' }, 'RETURN'];

/** Runtime code of a wallet owned by `owner` (an EOA address). */
export function walletRuntime(owner: Hex): string {
  return assemble([
    // Only isValidSignature(bytes32,bytes): 0x1626ba7e.
    { push: '00' },
    'CALLDATALOAD',
    { push: 'e0' },
    'SHR',
    { push: '1626ba7e' },
    'EQ',
    { jump: 'call' },
    'JUMPI',
    { push: '00' },
    'DUP1',
    'REVERT',
    { label: 'call' },
    // The signature's length word: 4 + its ABI offset; anything but 65 bytes is refused.
    { push: '24' },
    'CALLDATALOAD',
    { push: '04' },
    'ADD',
    'DUP1',
    'CALLDATALOAD',
    { push: '41' },
    'EQ',
    'ISZERO',
    { jump: 'refuse' },
    'JUMPI',
    // ecrecover input at 0: hash, v, r, s.
    { push: '04' },
    'CALLDATALOAD',
    { push: '00' },
    'MSTORE',
    'DUP1',
    { push: '60' },
    'ADD',
    'CALLDATALOAD',
    { push: '00' },
    'BYTE',
    { push: '20' },
    'MSTORE',
    'DUP1',
    { push: '20' },
    'ADD',
    'CALLDATALOAD',
    { push: '40' },
    'MSTORE',
    { push: '40' },
    'ADD',
    'CALLDATALOAD',
    { push: '60' },
    'MSTORE',
    // staticcall(gas, 0x01, 0, 128, 128, 32): the recovered address lands at 128 (zero when recovery fails).
    { push: '20' },
    { push: '80' },
    { push: '80' },
    { push: '00' },
    { push: '01' },
    'GAS',
    'STATICCALL',
    'POP',
    { push: '80' },
    'MLOAD',
    { push: owner.slice(2).toLowerCase() },
    'EQ',
    { jump: 'accept' },
    'JUMPI',
    { label: 'refuse' },
    ...answer('ffffffff'),
    { label: 'accept' },
    ...answer('1626ba7e'),
  ]);
}

/** Creation code that deploys `runtime` as is. */
export function creationCode(runtime: string): Hex {
  const length = (runtime.length / 2).toString(16).padStart(4, '0');
  // PUSH2 len DUP1 PUSH1 offset PUSH1 0 CODECOPY PUSH1 0 RETURN: 12 bytes before the runtime.
  return `0x61${length}80600c6000396000f3${runtime}`;
}
