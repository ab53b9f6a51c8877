/** Table cells shared by the workload printers (the reference's CONTAINERS, IMAGES and SELECTOR columns). */
import { isObject, type ApiObject } from '../../../api/types.js';
import { column, pathValue } from '../../schema.js';
import type { TableColumn } from '../../types.js';
import { formatLabelMap, formatLabelSelector } from '../../../selectors/index.js';

const objects = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A count read from the object; a missing or malformed one reads as 0, as the reference's zero value. */
export const count = (o: ApiObject, path: string): number => {
  const v = pathValue(o, path);
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
};

/** Names and images of the containers at `containersPath`, comma-joined in order. */
function containerCells(o: ApiObject, containersPath: string): { names: string; images: string } {
  const cs = objects(pathValue(o, containersPath));
  return { names: cs.map((c) => text(c.name)).join(','), images: cs.map((c) => text(c.image)).join(',') };
}

/** CONTAINERS and IMAGES of a pod template, at `priority` (1 = wide only). */
export function containerColumns(containersPath: string, priority = 1): TableColumn[] {
  return [
    column('Containers', 'string', 'Container names in the pod template.', (o) => containerCells(o, containersPath).names, priority),
    column('Images', 'string', 'Container images in the pod template.', (o) => containerCells(o, containersPath).images, priority),
  ];
}

/** SELECTOR (wide) of a structured label selector at `spec.selector`. */
export const structuredSelectorColumn = (): TableColumn =>
  column('Selector', 'string', 'Label query over the pods this controller manages.', (o) => formatLabelSelector(pathValue(o, 'spec.selector')), 1);

/** SELECTOR (wide) of a plain label map at `spec.selector`. */
export const mapSelectorColumn = (): TableColumn =>
  column('Selector', 'string', 'Labels of the pods this controller manages.', (o) => formatLabelMap(pathValue(o, 'spec.selector')), 1);
