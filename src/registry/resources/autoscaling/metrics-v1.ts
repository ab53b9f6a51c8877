/**
 * Metric specs and statuses between the autoscaling/v2 shape (`metric` + `target`/`current`) and the older
 * shape autoscaling/v1 keeps in its annotations (`metricName`, `targetAverageValue`, ...), field by field as
 * the reference converts them. Quantities the old shape requires are written as "0" when unset, as the
 * reference's zero quantity serializes.
 */
import { isObject } from '../../../api/types.js';
import { absent, rec, type Obj } from '../batch/fields.js';

const ZERO = '0';

/** Copies the set entries of `fields` into a new object, in order (Go's `omitempty`). */
function compact(fields: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(fields)) if (!absent(v)) out[k] = structuredClone(v);
  return out;
}

const reference = (ref: unknown): Obj => {
  const r = rec(ref);
  return compact({ kind: r.kind ?? '', name: r.name ?? '', apiVersion: r.apiVersion });
};

/** v2 MetricSpec -> the v1 annotation shape. */
export function metricSpecToV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  if (isObject(m.object)) {
    const metric = rec(m.object.metric);
    const target = rec(m.object.target);
    out.object = compact({ target: reference(m.object.describedObject), metricName: metric.name ?? '', targetValue: target.value ?? ZERO, selector: metric.selector, averageValue: target.averageValue });
  }
  if (isObject(m.pods)) {
    const metric = rec(m.pods.metric);
    out.pods = compact({ metricName: metric.name ?? '', targetAverageValue: rec(m.pods.target).averageValue ?? ZERO, selector: metric.selector });
  }
  if (isObject(m.resource)) {
    const target = rec(m.resource.target);
    out.resource = compact({ name: m.resource.name ?? '', targetAverageUtilization: target.averageUtilization, targetAverageValue: target.averageValue });
  }
  if (isObject(m.containerResource)) {
    const target = rec(m.containerResource.target);
    out.containerResource = compact({
      name: m.containerResource.name ?? '',
      targetAverageUtilization: target.averageUtilization,
      targetAverageValue: target.averageValue,
      container: m.containerResource.container ?? '',
    });
  }
  if (isObject(m.external)) {
    const metric = rec(m.external.metric);
    const target = rec(m.external.target);
    out.external = compact({ metricName: metric.name ?? '', metricSelector: metric.selector, targetValue: target.value, targetAverageValue: target.averageValue });
  }
  return out;
}

const identifier = (name: unknown, selector: unknown): Obj => compact({ name: name ?? '', selector });

/** The v1 annotation shape -> v2 MetricSpec; the target type follows from which values are set. */
export function metricSpecFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  if (isObject(m.object)) {
    const o = m.object;
    const value = o.targetValue ?? ZERO;
    out.object = {
      describedObject: reference(o.target),
      target: compact({ type: absent(o.averageValue) ? 'Value' : 'AverageValue', value, averageValue: o.averageValue }),
      metric: identifier(o.metricName, o.selector),
    };
  }
  if (isObject(m.pods)) {
    out.pods = {
      metric: identifier(m.pods.metricName, m.pods.selector),
      target: { type: 'AverageValue', averageValue: structuredClone(m.pods.targetAverageValue ?? ZERO) },
    };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    const r = m[key];
    if (!isObject(r)) continue;
    const target = compact({
      type: absent(r.targetAverageUtilization) ? 'AverageValue' : 'Utilization',
      averageValue: r.targetAverageValue,
      averageUtilization: r.targetAverageUtilization,
    });
    out[key] = key === 'resource' ? { name: r.name ?? '', target } : { name: r.name ?? '', target, container: r.container ?? '' };
  }
  if (isObject(m.external)) {
    const e = m.external;
    out.external = {
      metric: identifier(e.metricName, e.metricSelector),
      target: compact({ type: absent(e.targetValue) ? 'AverageValue' : 'Value', value: e.targetValue, averageValue: e.targetAverageValue }),
    };
  }
  return out;
}

/** v2 MetricStatus -> the v1 annotation shape. */
export function metricStatusToV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  if (isObject(m.object)) {
    const metric = rec(m.object.metric);
    const current = rec(m.object.current);
    out.object = compact({
      target: reference(m.object.describedObject),
      metricName: metric.name ?? '',
      currentValue: current.value ?? ZERO,
      selector: metric.selector,
      averageValue: current.averageValue,
    });
  }
  if (isObject(m.pods)) {
    const metric = rec(m.pods.metric);
    out.pods = compact({ metricName: metric.name ?? '', currentAverageValue: rec(m.pods.current).averageValue ?? ZERO, selector: metric.selector });
  }
  for (const key of ['resource', 'containerResource'] as const) {
    const r = m[key];
    if (!isObject(r)) continue;
    const current = rec(r.current);
    out[key] = compact({
      name: r.name ?? '',
      currentAverageUtilization: current.averageUtilization,
      currentAverageValue: current.averageValue ?? ZERO,
      container: key === 'containerResource' ? (r.container ?? '') : undefined,
    });
  }
  if (isObject(m.external)) {
    const metric = rec(m.external.metric);
    const current = rec(m.external.current);
    out.external = compact({ metricName: metric.name ?? '', metricSelector: metric.selector, currentValue: current.value ?? ZERO, currentAverageValue: current.averageValue });
  }
  return out;
}

/** The v1 annotation shape -> v2 MetricStatus. */
export function metricStatusFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  if (isObject(m.object)) {
    const o = m.object;
    out.object = {
      metric: identifier(o.metricName, o.selector),
      current: compact({ value: o.currentValue ?? ZERO, averageValue: o.averageValue }),
      describedObject: reference(o.target),
    };
  }
  if (isObject(m.pods)) {
    out.pods = { metric: identifier(m.pods.metricName, m.pods.selector), current: { averageValue: structuredClone(m.pods.currentAverageValue ?? ZERO) } };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    const r = m[key];
    if (!isObject(r)) continue;
    const current = compact({ averageValue: r.currentAverageValue ?? ZERO, averageUtilization: r.currentAverageUtilization });
    out[key] = key === 'resource' ? { name: r.name ?? '', current } : { name: r.name ?? '', current, container: r.container ?? '' };
  }
  if (isObject(m.external)) {
    const e = m.external;
    out.external = { metric: identifier(e.metricName, e.metricSelector), current: compact({ value: e.currentValue ?? ZERO, averageValue: e.currentAverageValue }) };
  }
  return out;
}
