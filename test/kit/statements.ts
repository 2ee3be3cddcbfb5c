// Counting the statements a request runs: a Kysely plugin on the server's connection (startServer's
// `plugins`), so that a test can prove a streamed export reads the database a page at a time.
import type { KyselyPlugin, RootOperationNode } from 'kysely';

/** Counts the SELECT statements that read `table` while `counter.on` is true. */
export function statementCounter(table: string) {
  const counter = { on: false, reads: 0 };
  const plugin: KyselyPlugin = {
    transformQuery(args: { node: RootOperationNode }) {
      if (counter.on && args.node.kind === 'SelectQueryNode' && JSON.stringify(args.node.from).includes(`"${table}"`)) counter.reads++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { counter, plugin };
}

/** Resolves once `counter.reads` has not moved for 300 ms: the server has stopped on a full socket. */
export async function settled(counter: { reads: number }): Promise<void> {
  let seen = -1;
  while (seen !== counter.reads) {
    seen = counter.reads;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
