// How far V8 lets a long-running server's heap grow past what its last full
// collection found alive. V8 picks the factor itself, up to 4× when collections
// are cheap next to the program, which they are here: a verify load promotes a
// few hundred bytes per scan into the old generation and the first full
// collection under load then came at ~110 MB used for ~40 MB alive, the process
// peaking near 300 MiB. At 1.5× the collections come every several seconds and
// cost well under 1 % of the main thread (docs/throughput.md, Memory).
// An operator's own --heap-growing-percent (a node flag; V8 flags are refused in NODE_OPTIONS) wins.
import { setFlagsFromString } from 'node:v8';

const FLAG = '--heap-growing-percent';
const SERVER_GROWING_PERCENT = 50;

/** Sets the server's growing factor unless the operator chose one; says whether it did. */
export function applyServerHeapPolicy(): boolean {
  if (process.execArgv.some((arg) => arg.replace(/_/g, '-').startsWith(FLAG))) return false;
  setFlagsFromString(`${FLAG}=${SERVER_GROWING_PERCENT}`);
  return true;
}
