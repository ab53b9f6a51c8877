/**
 * Structured label selectors (`metav1.LabelSelector`) inside object specs: the reference's validation
 * wording and matching against a label set. Shared by the batch and policy types.
 */
import { isObject } from '../../../api/types.js';
import { labelSelectorFromObject, matchesLabels, type LabelSelectorObject } from '../../../selectors/index.js';


/**
 * Whether a structured selector selects `labels`: a missing selector selects nothing, `{}` everything.
 * An invalid selector (which validation reports) selects nothing.
 */
export function selectorMatches(sel: unknown, labels: unknown): boolean {
  if (!isObject(sel)) return false;
  try {
    const parsed = labelSelectorFromObject(sel as LabelSelectorObject);
    return matchesLabels(parsed, isObject(labels) ? (labels as Record<string, string>) : {});
  } catch {
    return false;
  }
}
