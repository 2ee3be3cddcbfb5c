// Every load a bench measures goes through here: a run in which any request failed (an error, a timeout, an
// answer other than 2xx) measured something else than the bench names, so the bench stops with that line,
// exits non-zero and writes no table.
import autocannon from 'autocannon';

export function refuseFailures(result: autocannon.Result, what: string): autocannon.Result {
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0)
    throw new Error(
      `${what}: ${failed} of ${result.requests.sent} requests failed (${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts); no table written`,
    );
  return result;
}

/** autocannon with `options`, refused when any request failed. */
export async function load(options: autocannon.Options, what: string): Promise<autocannon.Result> {
  return refuseFailures(await autocannon(options), what);
}
