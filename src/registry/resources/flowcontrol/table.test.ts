import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../api/types.js';
import type { TableColumn } from '../../types.js';
import { flowSchemaColumns, priorityLevelColumns } from './table.js';
import { flowSchemasV1beta3, priorityLevelsV1 } from './index.js';

const cells = (columns: TableColumn[], o: ApiObject) => columns.map((c) => c.value(o));
const headers = (columns: TableColumn[]) => columns.map((c) => c.name);

test('reference behaviour: FlowSchema columns are PriorityLevel, MatchingPrecedence, DistinguisherMethod, MissingPL', () => {
  assert.deepEqual(headers(flowSchemaColumns), ['PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'MissingPL']);
  assert.equal(flowSchemasV1beta3.tableColumns, flowSchemaColumns);
  const cases: [ApiObject, unknown[]][] = [
    [{ kind: 'FlowSchema', spec: { priorityLevelConfiguration: { name: 'system' }, matchingPrecedence: 500, distinguisherMethod: { type: 'ByUser' } } }, ['system', 500, 'ByUser', '?']],
    [
      { kind: 'FlowSchema', spec: { priorityLevelConfiguration: { name: 'gone' }, matchingPrecedence: 9 }, status: { conditions: [{ type: 'Dangling', status: 'True' }] } },
      ['gone', 9, '<none>', 'True'],
    ],
    [{ kind: 'FlowSchema' }, ['', '<none>', '<none>', '?']],
  ];
  for (const [o, want] of cases) assert.deepEqual(cells(flowSchemaColumns, o), want);
});

test('reference behaviour: PriorityLevelConfiguration columns show the limited and queuing numbers or <none>', () => {
  assert.deepEqual(headers(priorityLevelColumns), ['Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit']);
  assert.equal(priorityLevelsV1.tableColumns, priorityLevelColumns);
  const cases: [ApiObject, unknown[]][] = [
    [
      { kind: 'PriorityLevelConfiguration', spec: { type: 'Limited', limited: { nominalConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } } } } },
      ['Limited', 30, 64, 6, 50],
    ],
    [{ kind: 'PriorityLevelConfiguration', spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } } }, ['Limited', 5, '<none>', '<none>', '<none>']],
    [{ kind: 'PriorityLevelConfiguration', spec: { type: 'Exempt', exempt: {} } }, ['Exempt', '<none>', '<none>', '<none>', '<none>']],
  ];
  for (const [o, want] of cases) assert.deepEqual(cells(priorityLevelColumns, o), want);
});
