// The API's closed list (src/audit/operations.ts) but the deployment's own (master key generations), for the
// Audit page's filter; test/audit/cli.test.ts checks the two agree. An unknown one in a hand-edited URL lists every change.
export const OPERATIONS = [
  'team.create',
  'team.update',
  'key.create',
  'key.roll',
  'key.revoke',
  'tag.create',
  'tag.update',
  'tag.delete',
  'tag.import',
  'tag.emulate',
  'tag.link',
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.redeliver',
  'write.start',
  'write.finish',
  'product.create',
  'token.create',
  'holding.set',
  'holding.unset',
  'scans.prune',
] as const;
type Operation = (typeof OPERATIONS)[number];
export const isOperation = (value: string): value is Operation => (OPERATIONS as readonly string[]).includes(value);
