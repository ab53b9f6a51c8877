/** The pod table as kubectl prints it: READY, STATUS (the reference's reason logic), RESTARTS, and wide columns. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { column } from '../../schema.js';
import type { TableColumn } from '../../types.js';

type Obj = Record<string, unknown>;

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const rec = (v: unknown): Obj => (isObject(v) ? v : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

const conditionTrue = (status: Obj, type: string) =>
  objects(status.conditions).some((c) => c.type === type && c.status === 'True');

/** "Init:<reason>" style text of a terminated container without a reason. */
const exitText = (t: Obj) => (num(t.signal) !== 0 ? `Signal:${num(t.signal)}` : `ExitCode:${num(t.exitCode)}`);

interface PodSummary {
  ready: number;
  total: number;
  restarts: number;
  reason: string;
}

/** Follows the reference printer: init containers first, then app containers from last to first. */
export function summarizePod(pod: ApiObject): PodSummary {
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  let reason = text(status.reason) || text(status.phase);
  let restarts = 0;
  let ready = 0;

  const initSpecs = objects(spec.initContainers);
  let initializing = false;
  const initStatuses = objects(status.initContainerStatuses);
  for (const [i, c] of initStatuses.entries()) {
    restarts += num(c.restartCount);
    const state = rec(c.state);
    const terminated = isObject(state.terminated) ? state.terminated : undefined;
    const waiting = isObject(state.waiting) ? state.waiting : undefined;
    const sidecar = initSpecs.find((s) => s.name === c.name)?.restartPolicy === 'Always';
    if (terminated && num(terminated.exitCode) === 0) continue;
    if (sidecar && c.started === true) continue;
    initializing = true;
    if (terminated) reason = text(terminated.reason) ? `Init:${text(terminated.reason)}` : `Init:${exitText(terminated)}`;
    else if (waiting && text(waiting.reason) && waiting.reason !== 'PodInitializing') reason = `Init:${text(waiting.reason)}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    break;
  }

  if (!initializing || conditionTrue(status, 'Initialized')) {
    restarts = 0;
    let hasRunning = false;
    const statuses = objects(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i] as Obj;
      restarts += num(c.restartCount);
      const state = rec(c.state);
      const waiting = rec(state.waiting);
      const terminated = isObject(state.terminated) ? state.terminated : undefined;
      if (text(waiting.reason)) reason = text(waiting.reason);
      else if (terminated) reason = text(terminated.reason) || exitText(terminated);
      else if (c.ready === true && isObject(state.running)) hasRunning = true;
      if (c.ready === true) ready++;
    }
    // A pod whose main container finished while a sidecar still runs is not "Completed".
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(status, 'Ready') ? 'Running' : 'NotReady';
  }

  const phase = text(status.phase);
  if (pod.metadata?.deletionTimestamp) {
    if (status.reason === 'NodeLost') reason = 'Unknown';
    else if (phase !== 'Failed' && phase !== 'Succeeded') reason = 'Terminating';
  }
  return { ready, total: objects(spec.containers).length, restarts, reason };
}

function readinessGates(pod: ApiObject): string {
  const gates = objects(rec(pod.spec).readinessGates);
  if (gates.length === 0) return '<none>';
  const status = rec(pod.status);
  const passed = gates.filter((g) => conditionTrue(status, text(g.conditionType))).length;
  return `${passed}/${gates.length}`;
}

const orNone = (v: unknown) => text(v) || '<none>';

export const podColumns: TableColumn[] = [
  column('Ready', 'string', 'Ready containers out of all containers.', (o) => {
    const s = summarizePod(o);
    return `${s.ready}/${s.total}`;
  }),
  column('Status', 'string', 'Summary of the pod and container states.', (o) => summarizePod(o).reason),
  column('Restarts', 'integer', 'Container restarts, summed.', (o) => summarizePod(o).restarts),
  column('IP', 'string', 'The pod address.', (o) => orNone(rec(o.status).podIP), 1),
  column('Node', 'string', 'The node the pod runs on.', (o) => orNone(rec(o.spec).nodeName), 1),
  column('Nominated Node', 'string', 'The node chosen by preemption.', (o) => orNone(rec(o.status).nominatedNodeName), 1),
  column('Readiness Gates', 'string', 'Readiness gates that are met.', readinessGates, 1),
];
