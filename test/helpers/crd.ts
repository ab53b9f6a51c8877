/** CRDs for the custom resource tests (test/crd*.test.ts). */

export async function waitFor(what: string, f: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The reference documentation's CronTab, with status and scale subresources and printer columns. */
export function crdBody(group: string, opts: { plural?: string; kind?: string; scope?: 'Namespaced' | 'Cluster'; shortNames?: string[] } = {}) {
  const plural = opts.plural ?? 'crontabs';
  const kind = opts.kind ?? 'CronTab';
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: opts.scope ?? 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: opts.shortNames ?? ['ct'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' } },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec', description: 'the cron spec' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Image', type: 'string', jsonPath: '.spec.image', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          selectableFields: [{ jsonPath: '.spec.image' }],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    cronSpec: { type: 'string' },
                    image: { type: 'string' },
                    replicas: { type: 'integer', minimum: 0, default: 1 },
                  },
                  'x-kubernetes-validations': [{ rule: "!has(self.image) || self.image != 'forbidden'", message: 'image may not be forbidden' }],
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' }, labelSelector: { type: 'string' } } },
              },
            },
          },
        },
      ],
    },
  };
}

/**
 * A namespaced Widget with two served versions: v1 (stored) has `spec.replicas`, v2 `spec.<v2Field>`; the
 * admission and conversion tests give it conversion `None` or a conversion webhook. `countColumn` adds a
 * printer column `Count` showing each version's field.
 */
export function twoVersionWidgetCrd(group: string, conversion: Record<string, unknown>, v2Field = 'size', countColumn = false) {
  const version = (name: string, storage: boolean, field: string) => ({
    name,
    served: true,
    storage,
    ...(countColumn ? { additionalPrinterColumns: [{ name: 'Count', type: 'integer', jsonPath: `.spec.${field}` }] } : {}),
    schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { [field]: { type: 'integer' } } } } } },
  });
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [version('v1', true, 'replicas'), version('v2', false, v2Field)],
      conversion,
    },
  };
}

/** Conversion through a webhook at `url`, trusted with `caBundle`, speaking ConversionReview v1. */
export const webhookConversion = (url: string, caBundle: string) => ({ strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1'] } });
