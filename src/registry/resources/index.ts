import type { ResourceType } from '../types.js';
import { coreTypes } from './core.js';
import { extraTypes } from './extra.js';

/** Every built-in type served by the API server, in discovery order. */
export function builtinTypes(): ResourceType[] {
  return [...coreTypes, ...extraTypes];
}
