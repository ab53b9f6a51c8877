/** A controller-gen style CRD for the tests of this folder and of the whole server. */
import { APIEXTENSIONS_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';

export function widgetCRD(): ApiObject {
  return {
    apiVersion: `${APIEXTENSIONS_GROUP}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com', annotations: { 'controller-gen.kubebuilder.io/version': 'v0.16.1' } },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget', shortNames: ['wd'], categories: ['all'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          additionalPrinterColumns: [
            { jsonPath: '.spec.size', name: 'Size', type: 'string' },
            { jsonPath: '.status.replicas', name: 'Replicas', type: 'integer', format: 'int32' },
            { jsonPath: '.status.conditions[?(@.type=="Ready")].status', name: 'Ready', type: 'string', priority: 1 },
            { jsonPath: '.metadata.creationTimestamp', name: 'Age', type: 'date' },
          ],
          selectableFields: [{ jsonPath: '.spec.size' }],
          schema: {
            openAPIV3Schema: {
              description: 'Widget is the Schema for the widgets API.',
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  required: ['size'],
                  properties: {
                    size: { type: 'string', enum: ['small', 'large'] },
                    replicas: { type: 'integer', format: 'int32', default: 1, minimum: 0 },
                    selector: { type: 'string' },
                    labels: { type: 'object', additionalProperties: { type: 'string' } },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    replicas: { type: 'integer', format: 'int32' },
                    selector: { type: 'string' },
                    conditions: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['type', 'status'],
                        properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' } },
                      },
                    },
                  },
                },
              },
            },
          },
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
          },
        },
      ],
    },
  };
}
