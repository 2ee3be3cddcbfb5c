// How long one call may take and who may stop it: a timeout on each request and the
// signals of the client and of the call, which also cut short a wait before a retry.
import { TapproofError } from './errors.js';

/** The last, optional argument of every method. */
export interface CallOptions {
  /** Stops the call, a request under way or a wait before a retry: it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Milliseconds a request may take, its answer's body included (default: the client's, 30 s). */
  timeout?: number;
}

/** setTimeout fires at once for a delay beyond a signed 32-bit number of milliseconds. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export function checkTimeout(timeout: number, name: string): number {
  if (typeof timeout !== 'number' || !(timeout > 0)) throw new TypeError(`${name} must be a positive number of milliseconds`);
  return timeout;
}

const timeoutError = (ms: number) => new TapproofError(0, [{ status: '0', code: 'timeout', title: 'Timeout', detail: `no answer within ${ms} ms` }]);

/** Settles as `work` does, or rejects with the signal's reason as soon as it aborts, should `work` ignore the signal. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the signal's own reason, whatever it is, as fetch does
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** Calls `listener` when the first of `signals` aborts, with that signal's reason; returns the unsubscription. */
function onAbort(signals: readonly AbortSignal[], listener: (reason: unknown) => void): () => void {
  const removals = signals.map((signal) => {
    const abort = () => listener(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    return () => signal.removeEventListener('abort', abort);
  });
  return () => removals.forEach((remove) => remove());
}

export class Call {
  private readonly signals: AbortSignal[];

  constructor(
    signals: readonly (AbortSignal | undefined)[],
    private readonly timeout: number,
  ) {
    this.signals = signals.filter((signal) => signal !== undefined);
  }

  /** Throws the reason of an aborted signal, so that nothing is sent once the caller gave up. */
  throwIfAborted(): void {
    for (const signal of this.signals) signal.throwIfAborted();
  }

  /**
   * Runs one request under a fresh timeout. A failure of the request itself comes back to be
   * judged for a retry; an abort or the timeout is thrown, and no retry follows.
   */
  async attempt<T>(work: (signal: AbortSignal) => Promise<T>): Promise<{ value: T } | { failure: unknown }> {
    this.throwIfAborted();
    const controller = new AbortController();
    const unsubscribe = onAbort(this.signals, (reason) => controller.abort(reason));
    const timer = this.timeout <= LONGEST_TIMER_MS ? setTimeout(() => controller.abort(timeoutError(this.timeout)), this.timeout) : undefined;
    try {
      return { value: await untilAborted(work(controller.signal), controller.signal) };
    } catch (failure) {
      if (controller.signal.aborted) throw controller.signal.reason;
      return { failure };
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
  }

  /** Waits `ms` before a retry; an abort ends the wait with the signal's reason. */
  pause(ms: number): Promise<void> {
    this.throwIfAborted();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          unsubscribe();
          resolve();
        },
        Math.min(ms, LONGEST_TIMER_MS),
      );
      const unsubscribe = onAbort(this.signals, (reason) => {
        clearTimeout(timer);
        unsubscribe();
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the signal's own reason, whatever it is, as fetch does
        reject(reason);
      });
    });
  }
}
