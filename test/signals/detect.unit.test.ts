// The signal decisions on plain values (src/signals/detect.ts): each at its threshold and one step past it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { advanceGenuine, BURST_WINDOW_MICROS, genuineSignals, isBurst, type SignalState } from '../../src/signals/detect.js';
import { signalPattern, signalsOf, storedSignals } from '../../src/signals/names.js';
import { DEFAULT_THRESHOLDS, thresholdProblems } from '../../src/signals/thresholds.js';

const T0 = 1_780_000_000_000_000;
const SECOND = 1_000_000;
const chip = (overrides: Partial<SignalState> = {}): SignalState => ({
  last_counter: 10,
  last_country: 'US',
  last_genuine_at: T0,
  tamper_opened: 0,
  ...overrides,
});
const scan = (overrides: Partial<Parameters<typeof genuineSignals>[1]> = {}) => ({
  read_counter: 11,
  country: 'US',
  scanned_at: T0 + SECOND,
  tamper_permanent: null,
  ...overrides,
});

describe('genuineSignals', () => {
  test('counter_gap: more than the threshold above the last genuine counter; nothing before a first one', () => {
    assert.deepEqual(genuineSignals(chip(), scan({ read_counter: 15 }), DEFAULT_THRESHOLDS), []);
    assert.deepEqual(genuineSignals(chip(), scan({ read_counter: 16 }), DEFAULT_THRESHOLDS), ['counter_gap']);
    assert.deepEqual(genuineSignals(chip(), scan({ read_counter: 12 }), { ...DEFAULT_THRESHOLDS, counter_gap: 1 }), ['counter_gap']);
    assert.deepEqual(genuineSignals(chip({ last_counter: null }), scan({ read_counter: 1_000 }), DEFAULT_THRESHOLDS), []);
  });

  test('country_jump: another known country strictly inside the window', () => {
    const window = DEFAULT_THRESHOLDS.country_jump_window * SECOND;
    assert.deepEqual(genuineSignals(chip(), scan({ country: 'DE', scanned_at: T0 + window - 1 }), DEFAULT_THRESHOLDS), ['country_jump']);
    assert.deepEqual(genuineSignals(chip(), scan({ country: 'DE', scanned_at: T0 + window }), DEFAULT_THRESHOLDS), []);
    assert.deepEqual(genuineSignals(chip(), scan({ country: null }), DEFAULT_THRESHOLDS), []);
    assert.deepEqual(genuineSignals(chip({ last_country: null }), scan({ country: 'DE' }), DEFAULT_THRESHOLDS), []);
    assert.deepEqual(genuineSignals(chip({ last_genuine_at: null, last_country: null }), scan({ country: 'DE' }), DEFAULT_THRESHOLDS), []);
    assert.deepEqual(genuineSignals(chip(), scan({ country: 'DE' }), { ...DEFAULT_THRESHOLDS, country_jump_window: 0 }), []);
  });

  test('tamper: opened once, open ever after whatever the scan reports', () => {
    assert.deepEqual(genuineSignals(chip(), scan({ tamper_permanent: 'closed' }), DEFAULT_THRESHOLDS), []);
    assert.deepEqual(genuineSignals(chip(), scan({ tamper_permanent: 'open' }), DEFAULT_THRESHOLDS), ['tamper_opened']);
    assert.deepEqual(genuineSignals(chip({ tamper_opened: 1 }), scan({ tamper_permanent: 'open' }), DEFAULT_THRESHOLDS), ['tamper_open']);
    assert.deepEqual(genuineSignals(chip({ tamper_opened: 1 }), scan({ tamper_permanent: 'closed' }), DEFAULT_THRESHOLDS), ['tamper_open']);
    const opened = chip();
    advanceGenuine(opened, scan({ tamper_permanent: 'open', country: 'DE' }));
    assert.deepEqual(opened, { last_counter: 10, last_country: 'DE', last_genuine_at: T0 + SECOND, tamper_opened: 1 });
    const latched = chip({ tamper_opened: 1 });
    advanceGenuine(latched, scan({ country: null, tamper_permanent: 'closed' }));
    assert.deepEqual(latched, { last_counter: 10, last_country: null, last_genuine_at: T0 + SECOND, tamper_opened: 1 });
  });

  test('several at once, in the one order', () => {
    assert.deepEqual(genuineSignals(chip(), scan({ read_counter: 100, country: 'DE', tamper_permanent: 'open' }), DEFAULT_THRESHOLDS), [
      'counter_gap',
      'country_jump',
      'tamper_opened',
    ]);
  });
});

describe('isBurst', () => {
  test('the threshold-th refused scan within the hour, itself included', () => {
    const at = T0 + BURST_WINDOW_MICROS;
    assert.equal(isBurst(at, [T0 + 1, T0 + 2], DEFAULT_THRESHOLDS), true);
    assert.equal(isBurst(at, [T0, T0 + 2], DEFAULT_THRESHOLDS), false, 'exactly an hour before is outside');
    assert.equal(isBurst(at, [T0 + 2], DEFAULT_THRESHOLDS), false);
    assert.equal(isBurst(at, [], { ...DEFAULT_THRESHOLDS, replay_burst: 1 }), true);
    assert.equal(isBurst(at, [at + 5], DEFAULT_THRESHOLDS), false);
    assert.equal(isBurst(at, [at + 5, at - 5], DEFAULT_THRESHOLDS), true, 'decided earlier though timed later');
  });
});

describe('storage and thresholds', () => {
  test('signals are stored in one order, NULL for none, and matched whole', () => {
    assert.equal(storedSignals([]), null);
    assert.equal(storedSignals(['tamper_open', 'counter_gap']), 'counter_gap,tamper_open');
    assert.deepEqual(signalsOf(null), []);
    assert.deepEqual(signalsOf('counter_gap,tamper_open'), ['counter_gap', 'tamper_open']);
    assert.equal(signalPattern('tamper_open'), '%,tamper_open,%');
  });

  test('threshold problems name the threshold; limits ±1', () => {
    assert.deepEqual(thresholdProblems({ counter_gap: 1, country_jump_window: 0, replay_burst: 10_000 }), []);
    assert.deepEqual(
      thresholdProblems({ counter_gap: 0, country_jump_window: 2_592_001, replay_burst: 10_001, other: 1 }).map((p) => p.path),
      ['signal_thresholds/counter_gap', 'signal_thresholds/country_jump_window', 'signal_thresholds/replay_burst', 'signal_thresholds/other'],
    );
    assert.deepEqual(
      thresholdProblems(7).map((p) => [p.path, p.detail]),
      [['signal_thresholds', 'signal_thresholds must be an object']],
    );
  });
});
