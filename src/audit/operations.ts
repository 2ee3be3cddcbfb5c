// The closed list of what the audit log records (docs/audit.md). An operation is `<resource>.<verb>`;
// the resource type stored beside it is the part before the dot, so the two cannot disagree.
export const AUDIT_OPERATIONS = [
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
  'webhook.test',
  'write.start',
  'write.finish',
  'product.create',
  'token.create',
  'holding.set',
  'holding.unset',
  'user.invite',
  'user.update',
  'user.reset',
  'user.set_password',
  'user.add_passkey',
  'user.join',
  'user.bind',
  'master.rotate',
  'master.rewrap',
  'master.retire',
  'scans.prune',
  'case.update',
  'case.add_note',
] as const;

export type AuditOperation = (typeof AUDIT_OPERATIONS)[number];

export const resourceTypeOf = (operation: AuditOperation): string => operation.slice(0, operation.indexOf('.'));
