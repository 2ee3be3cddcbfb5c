// Query parameters of GET /cases (docs/cases.md#the-api): each refusal a 400 naming the parameter.
import { isId } from '../ids.js';
import { isTimePosition, type ListCursors } from '../http/cursor.js';
import { badParameter, checkWindow, isoTime, oneOf, pageSize, refuseUnknown, single, type Query } from '../http/query.js';
import { SIGNALS } from '../signals/index.js';
import type { CaseFilter } from './repository.js';
import { CASE_STATES } from './rules.js';
import { ListCasesQuery } from './schemas.js';

export interface CaseListing extends CaseFilter {
  before?: readonly [number, string];
  size: number;
}

const isKey = isTimePosition('case');

export async function readListCasesQuery(query: Query, cursors: ListCursors): Promise<CaseListing> {
  refuseUnknown(query, Object.keys(ListCasesQuery.properties));
  const tagId = single(query, 'tag_id');
  if (tagId !== undefined && !isId('tag', tagId)) throw badParameter('tag_id', 'tag_id must be a tag id (tag_…)');
  const assignee = single(query, 'assignee_id');
  if (assignee !== undefined && assignee !== 'none' && !isId('usr', assignee))
    throw badParameter('assignee_id', 'assignee_id must be a person’s id (usr_…) or none');
  const since = isoTime(query, 'since');
  const until = isoTime(query, 'until');
  checkWindow(since, until);
  return {
    state: oneOf(query, 'state', CASE_STATES),
    signal: oneOf(query, 'signal', SIGNALS),
    tagId,
    assigneeId: assignee === undefined ? undefined : assignee === 'none' ? null : assignee,
    since,
    until,
    size: pageSize(query),
    before: await cursors.read(isKey),
  };
}
