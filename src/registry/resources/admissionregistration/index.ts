/**
 * admissionregistration/v1 objects: webhook configurations, validating admission policies and their
 * bindings, stored and validated here. Webhooks are called by admission/webhook; policies are later work.
 */
import { ADMISSIONREGISTRATION_GROUP as GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { jsonEqual } from '../../../patch/index.js';
import type { ResourceType } from '../../types.js';
import { referenceType } from '../reference.js';
import { defaultPolicy, defaultPolicyBinding, defaultWebhookConfiguration } from './defaults.js';
import { validatePolicy, validatePolicyBinding } from './policies.js';
import { bindingColumns, policyColumns, webhookColumns } from './table.js';
import { validateWebhookConfiguration } from './webhooks.js';

export const ADMISSIONREGISTRATION_GROUP = GROUP;

/**
 * Webhook configurations have no spec; as in the reference, their generation starts at 1 and grows
 * whenever the webhooks change.
 */
function webhookConfigurationType(plural: string, mutating: boolean): ResourceType {
  return referenceType(ADMISSIONREGISTRATION_GROUP, 'v1', plural, {
    categories: API_EXTENSIONS,
    tableColumns: webhookColumns,
    strategy: {
      tracksGeneration: true,
      prepareForCreate: (o) => defaultWebhookConfiguration(o, mutating),
      prepareForUpdate: (o: ApiObject, old: ApiObject) => {
        defaultWebhookConfiguration(o, mutating);
        if (!jsonEqual(o.webhooks, old.webhooks) && o.metadata) {
          const generation = old.metadata?.generation;
          o.metadata.generation = (typeof generation === 'number' ? generation : 0) + 1;
        }
      },
      validate: (o) => validateWebhookConfiguration(o, mutating),
    },
  });
}

/** The category `kubectl get api-extensions` lists, as the reference gives these kinds. */
export const API_EXTENSIONS = ['api-extensions'];

export const validatingWebhookConfigurations = webhookConfigurationType('validatingwebhookconfigurations', false);
export const mutatingWebhookConfigurations = webhookConfigurationType('mutatingwebhookconfigurations', true);

export const validatingAdmissionPolicies = referenceType(ADMISSIONREGISTRATION_GROUP, 'v1', 'validatingadmissionpolicies', {
  categories: API_EXTENSIONS,
  tableColumns: policyColumns,
  strategy: {
    prepareForCreate: defaultPolicy,
    prepareForUpdate: (o) => defaultPolicy(o),
    validate: validatePolicy,
  },
});

export const validatingAdmissionPolicyBindings = referenceType(ADMISSIONREGISTRATION_GROUP, 'v1', 'validatingadmissionpolicybindings', {
  categories: API_EXTENSIONS,
  tableColumns: bindingColumns,
  strategy: {
    prepareForCreate: defaultPolicyBinding,
    prepareForUpdate: (o) => defaultPolicyBinding(o),
    validate: validatePolicyBinding,
  },
});

/** Types of this group with behaviour of their own; its alpha and beta versions come from the reference data alone. */
export const admissionregistrationTypes: ResourceType[] = [
  validatingWebhookConfigurations,
  mutatingWebhookConfigurations,
  validatingAdmissionPolicies,
  validatingAdmissionPolicyBindings,
];
