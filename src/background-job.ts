/**
 * Work that runs beside the HTTP server: in `tapproof serve` by default, or alone in `tapproof worker`.
 * `C` is the part of the context the job uses; the composition root starts it with the whole one.
 */
export interface BackgroundJob<C> {
  name: string;
  /** Starts the job; the returned function stops it and resolves when in-flight work is done. */
  start(ctx: C): () => Promise<void>;
}

/**
 * Runs `round` now (when `atStart`) and every `everyMs`, one round at a time, until stopped; a failed round
 * is logged as `failure` and the next one tries again. Returns the job's stop.
 */
export function everyInterval(
  log: { warn(details: object, message: string): void },
  options: { everyMs: number; atStart: boolean; failure: string },
  round: (stopped: () => boolean) => Promise<void>,
): () => Promise<void> {
  let stopped = false;
  const once = async () => {
    try {
      await round(() => stopped);
    } catch (error) {
      if (!stopped) log.warn({ err: error }, options.failure);
    }
  };
  let running: Promise<void> = options.atStart ? once() : Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(once);
  }, options.everyMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
