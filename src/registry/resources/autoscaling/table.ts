/** The HorizontalPodAutoscaler table as the reference prints it, computed on the v2 form. */
import type { ApiObject } from '../../../api/types.js';
import { column } from '../../schema.js';
import type { TableColumn } from '../../types.js';
import { absent, num, objects, rec, text, type Obj } from '../batch/fields.js';

const MAX_SHOWN = 2;
const UNKNOWN = '<unknown>';

const quantity = (v: unknown): string => (absent(v) ? '0' : String(v));
const percent = (v: unknown): string | undefined => (typeof v === 'number' ? `${v}%` : undefined);

/** `current/target` of one metric against its status at the same position. */
function metricText(spec: Obj, status: Obj | undefined): string {
  switch (spec.type) {
    case 'External':
    case 'Object': {
      const key = spec.type === 'External' ? 'external' : 'object';
      const target = rec(rec(spec[key]).target);
      const current = status && status[key] !== undefined ? rec(rec(status[key]).current) : undefined;
      if (!absent(target.averageValue)) {
        const now = current && !absent(current.averageValue) ? quantity(current.averageValue) : UNKNOWN;
        return `${now}/${quantity(target.averageValue)} (avg)`;
      }
      return `${current ? quantity(current.value) : UNKNOWN}/${quantity(target.value)}`;
    }
    case 'Pods': {
      const current = status && status.pods !== undefined ? quantity(rec(rec(status.pods).current).averageValue) : UNKNOWN;
      return `${current}/${quantity(rec(rec(spec.pods).target).averageValue)}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
      const source = rec(spec[key]);
      const target = rec(source.target);
      const current = status && status[key] !== undefined ? rec(rec(status[key]).current) : undefined;
      if (!absent(target.averageValue)) {
        return `${text(source.name)}: ${current ? quantity(current.averageValue) : UNKNOWN}/${quantity(target.averageValue)}`;
      }
      const now = (current && percent(current.averageUtilization)) ?? UNKNOWN;
      return `${text(source.name)}: ${now}/${percent(target.averageUtilization) ?? '<auto>'}`;
    }
    default:
      return '<unknown type>';
  }
}

/** Two metrics at most, then how many more (`formatHPAMetrics`). */
export function formatTargets(hpa: ApiObject): string {
  const specs = objects(rec(hpa.spec).metrics);
  if (specs.length === 0) return '<none>';
  const statuses = objects(rec(hpa.status).currentMetrics);
  const shown = specs.slice(0, MAX_SHOWN).map((s, i) => metricText(s, statuses[i]));
  const more = specs.length - MAX_SHOWN;
  return more > 0 ? `${shown.join(', ')} + ${more} more...` : shown.join(', ');
}

export const hpaColumns: TableColumn[] = [
  column('Reference', 'string', 'The kind and name of what is scaled.', (o) => {
    const ref = rec(rec(o.spec).scaleTargetRef);
    return `${text(ref.kind)}/${text(ref.name)}`;
  }),
  column('Targets', 'string', 'Current and target value of each metric.', formatTargets),
  column('MinPods', 'string', 'The fewest replicas the autoscaler keeps.', (o) => {
    const min = rec(o.spec).minReplicas;
    return typeof min === 'number' ? String(min) : '<unset>';
  }),
  column('MaxPods', 'integer', 'The most replicas the autoscaler allows.', (o) => num(rec(o.spec).maxReplicas)),
  column('Replicas', 'integer', 'Replicas the autoscaler last saw.', (o) => num(rec(o.status).currentReplicas)),
];

/** The same columns for another view, computed on its v2 form. */
export function convertedColumns(columns: TableColumn[], toV2: (o: ApiObject) => ApiObject): TableColumn[] {
  return columns.map((c) => ({ ...c, value: (o: ApiObject) => c.value(toV2(o)) }));
}
