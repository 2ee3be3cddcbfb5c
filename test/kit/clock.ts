// A clock tests move forward instead of sleeping: the system time plus an offset that
// only grows, so readings stay strictly increasing like the system clock's.
import { nowMicros, type Clock } from '../../src/time.js';

export interface TestClock extends Clock {
  /** Moves every later reading `ms` milliseconds ahead. */
  advance(ms: number): void;
}

export function testClock(): TestClock {
  let offset = 0;
  return {
    nowMicros: () => nowMicros() + offset,
    advance(ms) {
      if (!(ms > 0)) throw new Error('a clock only moves forward');
      offset += Math.round(ms * 1000);
    },
  };
}
