import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { priorityClasses, systemPriorityClasses } from './priority-class.js';


/** Types of this group with behaviour of their own; the group's other resources are served from the reference data alone. */
export const schedulingTypes: ResourceType[] = [priorityClasses];

/** Objects this group creates at start when missing (see resources/bootstrap.ts): the system priority classes. */
export function schedulingBootstrap(served: readonly ResourceType[]): ApiObject[] {
  const pc = priorityClasses;
  const isServed = served.some((t) => t.group === pc.group && t.version === pc.version && t.plural === pc.plural);
  return isServed ? systemPriorityClasses() : [];
}
