/**
 * Work that runs beside the HTTP server: in `tapproof serve` by default, or alone in `tapproof worker`.
 * `C` is the part of the context the job uses; the composition root starts it with the whole one.
 */
export interface BackgroundJob<C> {
  name: string;
  /** Starts the job; the returned function stops it and resolves when in-flight work is done. */
  start(ctx: C): () => Promise<void>;
}
