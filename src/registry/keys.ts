/** Storage keys: `/registry/<storageKey>/<namespace>/<name>`, or without the namespace for cluster types. */
export const ROOT = '/registry/';

export function collectionPrefix(storageKey: string, namespace?: string): string {
  return namespace ? `${ROOT}${storageKey}/${namespace}/` : `${ROOT}${storageKey}/`;
}

export function itemKey(storageKey: string, namespace: string | undefined, name: string): string {
  return `${collectionPrefix(storageKey, namespace)}${name}`;
}
