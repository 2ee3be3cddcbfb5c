// Records every statement src/ compiles through Kysely, as SQL text under the name of
// the function that issued it: the material of the committed SQL snapshot (sql/*.sql).
// A Kysely plugin sees each query node before it is compiled, on the stack of the call
// that runs it, so the issuing function is read from that stack.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KyselyPlugin, QueryCompiler, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Frames of these files run statements for their callers: the caller is named instead.
const PASS_THROUGH = ['src/db/precompiled.ts', 'src/db/chunked.ts', 'src/db/database.ts'];

const sources = new Map<string, string[]>();
/** The function, method or const around `line` of `file` (stack frames of callbacks carry no name). */
function enclosing(file: string, line: number): string {
  if (!sources.has(file)) sources.set(file, readFileSync(join(ROOT, file), 'utf8').split('\n'));
  const lines = sources.get(file)!;
  for (let i = line - 1; i >= 0; i--) {
    const m =
      /^(?:export )?(?:async )?function\*? ?(\w+)/.exec(lines[i]!) ??
      /^(?:export )?(?:const|let) (\w+)\b/.exec(lines[i]!) ??
      /^ {2}(?:(?:private|public|protected|static|async|override|get|set) )*(?!(?:if|for|while|switch|return|catch|await|throw)\b)(\w+)\s*[(<].*\{$/.exec(
        lines[i]!,
      );
    if (m) return m[1]!;
  }
  return '(top level)';
}

/** `src/tags/repository.ts listTags`: the innermost src/ function on the stack that is not a pass-through helper. */
function issuer(stack: string): string | null {
  for (const line of stack.split('\n')) {
    const m = /^\s+at (?:async )?(?:\S+ \()?(?:file:\/\/)?([^()]+?):(\d+):\d+\)?$/.exec(line);
    if (!m) continue;
    const file = relative(ROOT, m[1]!);
    if (!file.startsWith('src/') || PASS_THROUGH.includes(file)) continue;
    // Named from the source, not the frame (callbacks and object methods carry no useful name), as querySites() does.
    return `${file} ${enclosing(file, Number(m[2]))}`;
  }
  return null;
}

/** `file name` of every function in src/ (migrations aside) whose body builds a statement. */
export function querySites(): string[] {
  const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.startsWith('db/migrations'))
    .map((f) => `src/${f}`)
    .filter((f) => !PASS_THROUGH.includes(f));
  const sites = new Set<string>();
  for (const file of files) {
    if (!sources.has(file)) sources.set(file, readFileSync(join(ROOT, file), 'utf8').split('\n'));
    sources.get(file)!.forEach((line, i) => {
      if (/\b(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql`/.test(line)) sites.add(`${file} ${enclosing(file, i + 1)}`);
    });
  }
  return [...sites].sort();
}

/**
 * One text per statement shape, whatever the values: placeholders numbered from 1, a run of
 * identical value rows kept once, an `in (…)` list of any length written `in (…)`.
 */
export function normalize(text: string): string {
  const marked = text.replace(/\s+/g, ' ').trim().replace(/\$\d+/g, '$?');
  const collapsed = marked.replace(/(\((?:(?:\?|\$\?), )*(?:\?|\$\?)\))(?:, \1)+/g, '$1').replace(/ in \((?:(?:\?|\$\?), )*(?:\?|\$\?)\)/g, ' in (…)');
  let n = 0;
  return collapsed.replace(/\$\?/g, () => `$${++n}`);
}

export interface Recorder {
  plugin: KyselyPlugin;
  /** Each issuer with its statements, sorted, one entry per distinct text. */
  statements(): Map<string, string[]>;
}

/** `compiler`: the dialect's own (Kysely's SqliteQueryCompiler or PostgresQueryCompiler). */
export function sqlRecorder(compiler: QueryCompiler): Recorder {
  const seen = new Map<string, Set<string>>();
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 60;
      const stack = new Error().stack ?? '';
      Error.stackTraceLimit = limit;
      const who = issuer(stack);
      const text = normalize(compiler.compileQuery(args.node, args.queryId).sql);
      // Statements of tests, and the bare placeholder src/db/precompiled.ts compiles to learn the dialect, are no queries of src/.
      if (who === null || /^(\?|\$1)$/.test(text)) return args.node;
      if (!seen.has(who)) seen.set(who, new Set());
      seen.get(who)!.add(text);
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return args.result;
    },
  };
  return {
    plugin,
    statements: () => new Map([...seen.keys()].sort().map((who) => [who, [...seen.get(who)!].sort()])),
  };
}

/** The committed file's text: each issuer as a comment over its statements. */
export function snapshotText(dialect: string, statements: Map<string, string[]>): string {
  const out = [
    `-- Every SQL statement src/ issues on ${dialect}, as compiled by Kysely while test/house/sql-snapshot.solo.test.ts`,
    '-- drives the platform; values are placeholders. Generated: do not edit. Regenerate with `npm run sql:snapshot`.',
  ];
  for (const [who, texts] of statements) {
    out.push('', `-- ${who}`);
    for (const text of texts) out.push(`${text};`);
  }
  // A helper that only builds statements its callers run shows here too.
  const missed = querySites().filter((site) => !statements.has(site));
  if (missed.length > 0) {
    out.push('', '-- Functions of src/ that build statements the flows of test/house/sql-snapshot.solo.test.ts did not run:');
    for (const site of missed) out.push(`--   ${site}`);
  }
  return out.join('\n') + '\n';
}
