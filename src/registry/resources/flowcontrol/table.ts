/**
 * `kubectl get` columns of the flow-control objects, as the reference prints them. The reference declares
 * every column as a string even where the cell is a number; `<none>` marks a value the object lacks and
 * `?` a FlowSchema whose Dangling condition nobody has computed yet.
 */
import type { ApiObject } from '../../../api/types.js';
import { column } from '../../schema.js';
import type { TableColumn } from '../../types.js';
import { isRec, type Rec } from '../events/fields.js';

const rec = (v: unknown): Rec => (isRec(v) ? v : {});
const cell = (v: unknown): string | number => (typeof v === 'number' || typeof v === 'string' ? v : '<none>');

function danglingStatus(o: ApiObject): string {
  const conditions = Array.isArray(rec(o.status).conditions) ? (rec(o.status).conditions as unknown[]) : [];
  const dangling = conditions.find((c) => isRec(c) && c.type === 'Dangling');
  return isRec(dangling) && typeof dangling.status === 'string' ? dangling.status : '?';
}

export const flowSchemaColumns: TableColumn[] = [
  column('PriorityLevel', 'string', 'Name of the priority level the matching requests go to.', (o) => String(rec(rec(o.spec).priorityLevelConfiguration).name ?? '')),
  column('MatchingPrecedence', 'string', 'Order in which schemas are tried; lower numbers first.', (o) => cell(rec(o.spec).matchingPrecedence)),
  column('DistinguisherMethod', 'string', 'How matching requests are split into flows.', (o) => cell(rec(rec(o.spec).distinguisherMethod).type)),
  column('MissingPL', 'string', 'Whether the referenced priority level is missing.', danglingStatus),
];

function limitedField(o: ApiObject, pick: (limited: Rec) => unknown): string | number {
  const limited = rec(o.spec).limited;
  return isRec(limited) ? cell(pick(limited)) : '<none>';
}
const queuing = (limited: Rec): Rec => rec(rec(limited.limitResponse).queuing);

export const priorityLevelColumns: TableColumn[] = [
  column('Type', 'string', 'Whether requests at this level are exempt from limits or limited.', (o) => String(rec(o.spec).type ?? '')),
  column('NominalConcurrencyShares', 'string', 'Share of the server concurrency limit this level is entitled to.', (o) => limitedField(o, (l) => l.nominalConcurrencyShares)),
  column('Queues', 'string', 'Number of queues of this level.', (o) => limitedField(o, (l) => queuing(l).queues)),
  column('HandSize', 'string', 'Number of queues a flow is dealt.', (o) => limitedField(o, (l) => queuing(l).handSize)),
  column('QueueLengthLimit', 'string', 'Longest a queue may grow.', (o) => limitedField(o, (l) => queuing(l).queueLengthLimit)),
];
