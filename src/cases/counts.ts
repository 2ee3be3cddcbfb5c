// A case's scans per signal, stored as JSON: every signal, in the signals' order.
import { SIGNALS, type Signal } from '../signals/index.js';

export const emptyCounts = () => Object.fromEntries(SIGNALS.map((s) => [s, 0])) as Record<Signal, number>;

export const countsOf = (stored: string): Record<Signal, number> => ({ ...emptyCounts(), ...(JSON.parse(stored) as Partial<Record<Signal, number>>) });
