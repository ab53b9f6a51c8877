/**
 * A controller-gen style CRD version schema (a typical operator's `Database` kind) and an instance of it,
 * shared by the tests and the benchmark.
 */
export const databaseSchema: Record<string, unknown> = {
  description: 'Database is the Schema for the databases API',
  type: 'object',
  properties: {
    apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object.', type: 'string' },
    kind: { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' },
    metadata: { type: 'object' },
    spec: {
      description: 'DatabaseSpec defines the desired state of Database',
      type: 'object',
      required: ['engine', 'version'],
      properties: {
        engine: { type: 'string', enum: ['postgres', 'mysql'] },
        version: { type: 'string', pattern: '^\\d+(\\.\\d+)*$', maxLength: 16 },
        replicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 9, default: 1 },
        storage: {
          type: 'object',
          default: {},
          properties: {
            size: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true, default: '10Gi' },
            className: { type: 'string', maxLength: 63 },
          },
        },
        backup: {
          type: 'object',
          properties: {
            schedule: { type: 'string', maxLength: 64 },
            retention: { type: 'string', format: 'duration', default: '168h' },
            enabled: { type: 'boolean', default: false },
          },
        },
        users: {
          type: 'array',
          maxItems: 32,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string', maxLength: 32 },
              roles: { type: 'array', maxItems: 8, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 32 } },
              passwordSecretRef: { type: 'object', properties: { name: { type: 'string' }, key: { type: 'string', default: 'password' } }, 'x-kubernetes-map-type': 'atomic' },
            },
          },
        },
        parameters: { type: 'object', additionalProperties: { type: 'string', maxLength: 256 }, maxProperties: 64 },
        podTemplate: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
      'x-kubernetes-validations': [
        { rule: "self.engine != 'mysql' || self.replicas <= 3", message: 'mysql supports at most 3 replicas', fieldPath: '.replicas' },
        { rule: 'self.version == oldSelf.version || self.engine == oldSelf.engine', message: 'engine and version may not both change' },
      ],
    },
    status: {
      type: 'object',
      properties: {
        phase: { type: 'string' },
        observedGeneration: { type: 'integer', format: 'int64' },
        conditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: {
            type: 'object',
            required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
            properties: {
              lastTransitionTime: { type: 'string', format: 'date-time' },
              message: { type: 'string', maxLength: 32768 },
              observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
              reason: { type: 'string', maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' },
              status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
              type: { type: 'string', maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' },
            },
          },
        },
      },
    },
  },
};

export const databaseObject = () => ({
  apiVersion: 'db.example.com/v1',
  kind: 'Database',
  metadata: { name: 'orders', namespace: 'default', labels: { app: 'orders' } },
  spec: {
    engine: 'postgres',
    version: '16.2',
    replicas: 3,
    storage: { size: '20Gi', className: 'fast' },
    backup: { schedule: '0 3 * * *', enabled: true },
    users: [
      { name: 'app', roles: ['read', 'write'], passwordSecretRef: { name: 'app-pw' } },
      { name: 'report', roles: ['read'] },
    ],
    parameters: { max_connections: '200', shared_buffers: '1GB' },
    podTemplate: { spec: { nodeSelector: { disk: 'ssd' } } },
  },
  status: {
    phase: 'Ready',
    observedGeneration: 4,
    conditions: [{ type: 'Ready', status: 'True', reason: 'Reconciled', message: 'all good', lastTransitionTime: '2024-05-01T10:00:00Z' }],
  },
});
