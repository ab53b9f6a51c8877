/** A small Deployment-like schema shared by the apply tests. */
import type { ApiObject } from '../api/types.js';
import type { Schema } from '../api/index.js';
import { anyObject, arrayOf, bool, int32, mapList, obj, objectMeta, objectSchema, setList, str, stringMap } from '../registry/schema.js';

const port: Schema = {
  ...mapList(obj({ containerPort: int32(), protocol: str(), name: str() }), 'containerPort'),
  'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
};

const container = obj({
  name: str(),
  image: str(),
  args: arrayOf(str()),
  ports: port,
  env: mapList(obj({ name: str(), value: str() }), 'name'),
});

export const deploymentSchema: Schema = objectSchema('A Deployment-like kind.', {
  spec: obj({
    replicas: int32(),
    paused: bool(),
    selector: { ...obj({ matchLabels: stringMap() }), 'x-kubernetes-map-type': 'atomic' },
    tags: setList(str()),
    config: anyObject(),
    // A list with only a patch merge key (built-in style) is a map list too.
    volumes: { ...arrayOf(obj({ name: str(), path: str() })), 'x-kubernetes-patch-merge-key': 'name' },
    template: obj({
      metadata: objectMeta,
      spec: obj({ containers: mapList(container, 'name') }),
    }),
  }),
  status: obj({ replicas: int32() }),
});

export function deployment(spec: Record<string, unknown>, meta: Record<string, unknown> = {}): ApiObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', ...meta }, spec };
}

export const T0 = '2024-01-01T00:00:00Z';
export const T1 = '2024-01-01T00:01:00Z';
export const T2 = '2024-01-01T00:02:00Z';
export const T3 = '2024-01-01T00:03:00Z';
