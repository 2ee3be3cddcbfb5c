// How far V8 lets a long-running server's heap grow past what its last full
// collection found alive. V8 picks the factor itself, up to 4× when collections
// are cheap next to the program, which they are here: a verify load promotes a
// few hundred bytes per scan into the old generation, and at V8's own factor the
// first full collection comes only once the heap holds several times what is
// alive. At 1.5× the collections come every several seconds and cost little of
// the main thread, while the process stays far smaller (docs/throughput.md, Memory).
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
