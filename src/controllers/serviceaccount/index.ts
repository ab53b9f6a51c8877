/** The serviceaccount controller: a `default` ServiceAccount in every active namespace. */
export { serviceAccountController, SERVICEACCOUNT_CONTROLLER, DEFAULT_ACCOUNT, isActiveNamespace, isNamespaceTerminating } from './controller.js';
