import { after } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { allow, patchOf, startWebhookServer } from '../../../test/helpers/webhook-server.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionDeps } from '../types.js';
import { closeWebhookConnections, mutatingWebhookPlugin, validatingWebhookPlugin } from './index.js';

// One real HTTPS webhook: denies ConfigMaps labelled deny; at /mutate it patches the others.
const server = await startWebhookServer((r, path) => {
  if (r.request.object?.metadata?.labels?.deny) return { response: { uid: r.request.uid, allowed: false, status: { message: 'denied here' } } };
  if (path.startsWith('/mutate') && r.request.operation === 'CREATE') {
    return allow(r, { patchType: 'JSONPatch', patch: patchOf([{ op: 'add', path: '/metadata/annotations', value: { seen: 'yes' } }]) });
  }
  return allow(r);
});
after(async () => {
  closeWebhookConnections();
  await server.close();
});

const webhooks = (path: string) => [
  {
    name: 'contract.example.com',
    clientConfig: { url: `${server.url}${path}`, caBundle: server.caBundle },
    rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  },
];
const config = (kind: string, path: string): ApiObject => ({ kind, metadata: { name: 'contract', uid: 'contract', resourceVersion: '1' }, webhooks: webhooks(path) });
const deps: AdmissionDeps = {
  objects: fixedObjects({
    '/namespaces': [{ metadata: { name: 'default' } }],
    [`${ADMISSIONREGISTRATION_GROUP}/mutatingwebhookconfigurations`]: [config('MutatingWebhookConfiguration', '/mutate')],
    [`${ADMISSIONREGISTRATION_GROUP}/validatingwebhookconfigurations`]: [config('ValidatingWebhookConfiguration', '/validate')],
  }),
  equivalentResources: (r) => [r],
  kindOf: (r) => ({ group: r.group, version: r.version, kind: 'ConfigMap' }),
  log: () => undefined,
};
const cm = (labels: Record<string, string>) => (): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', labels }, data: { a: 'b' } });
const cases = [
  { title: 'a create the webhook allows (and patches)', request: () => admissionRequest({ operation: 'CREATE', name: 'c', object: cm({})() }) },
  { title: 'a create the webhook denies', request: () => admissionRequest({ operation: 'CREATE', name: 'c', object: cm({ deny: 'yes' })() }) },
  { title: 'a delete', request: () => admissionRequest({ operation: 'DELETE', name: 'c', oldObject: cm({})() }) },
];

admissionPluginContract('MutatingAdmissionWebhook', { make: () => mutatingWebhookPlugin(deps, undefined), cases });
admissionPluginContract('ValidatingAdmissionWebhook', { make: () => validatingWebhookPlugin(deps, undefined), cases });
