// The counterfeit signals a verification can carry (docs/signals.md). A verification stores them
// in its `signals` column as a comma-separated list in this order, and NULL when it has none: the
// NULL keeps the flagged index (migration 0021) to the scans that have one.
export const SIGNALS = ['counter_gap', 'country_jump', 'replay_burst', 'tamper_opened', 'tamper_open'] as const;
export type Signal = (typeof SIGNALS)[number];

/** The stored form of a scan's signals: NULL for none. */
export const storedSignals = (signals: readonly Signal[]): string | null =>
  signals.length === 0 ? null : SIGNALS.filter((s) => signals.includes(s)).join(',');

/** A stored value back as the list the API shows (empty for none). */
export const signalsOf = (stored: string | null): Signal[] => (stored === null ? [] : (stored.split(',') as Signal[]));

/** A SQL LIKE pattern that matches a stored value holding `signal` (wrapped in commas: tamper_open is a prefix of tamper_opened). */
export const signalPattern = (signal: Signal): string => `%,${signal},%`;
