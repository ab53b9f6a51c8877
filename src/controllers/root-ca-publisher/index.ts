/** The root CA publisher: the cluster's CA bundle as a ConfigMap in every active namespace. */
export { rootCaPublisherController, ROOT_CA_PUBLISHER, ROOT_CA_DESCRIPTION, CA_KEY, desiredConfigMap } from './controller.js';
