import type { AppContext } from './context.js';

/** Work that runs beside the HTTP server: in `tapproof serve` by default, or alone in `tapproof worker`. */
export interface BackgroundJob {
  name: string;
  /** Starts the job; the returned function stops it and resolves when in-flight work is done. */
  start(ctx: AppContext): () => Promise<void>;
}
