/**
 * Every identifier that carries the maker token lives here (architecture rule 5). No other file spells them.
 */
export const GROUP_SUFFIX = 'orch.io';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.orch.protobuf';
export const META_GROUP = `meta.${GROUP_SUFFIX}`;

export const SYSTEM_NAMESPACE = 'orch-system';
export const PUBLIC_NAMESPACE = 'orch-public';
export const DEFAULT_NAMESPACE = 'default';

export const RBAC_GROUP = `rbac.authorization.${GROUP_SUFFIX}`;
export const AUTHENTICATION_GROUP = `authentication.${GROUP_SUFFIX}`;
export const AUTHORIZATION_GROUP = `authorization.${GROUP_SUFFIX}`;
export const COORDINATION_GROUP = `coordination.${GROUP_SUFFIX}`;
export const EVENTS_GROUP = `events.${GROUP_SUFFIX}`;

/** Finalizer the namespace lifecycle puts on every namespace (`spec.finalizers`). */
export const NAMESPACE_FINALIZER = 'orch';

export const EXEC_INFO_ENV = 'ORCH_EXEC_INFO';

/** Annotation on the BOOKMARK that ends the initial events of a watch list. */
export const INITIAL_EVENTS_END_ANNOTATION = `${GROUP_SUFFIX}/initial-events-end`;
export const BOOTSTRAPPING_LABEL = `${GROUP_SUFFIX}/bootstrapping`;
export const RBAC_AUTOUPDATE_ANNOTATION = `${RBAC_GROUP}/autoupdate`;

/** The label every namespace carries with its own name. */
export const NAMESPACE_NAME_LABEL = `${GROUP_SUFFIX}/metadata.name`;

/**
 * OpenAPI vendor extensions that existing clients (kubectl explain, client-side apply) look for by their
 * exact names; renaming them would break those clients, so they keep the reference spelling.
 */
export const OPENAPI_GVK_EXTENSION = 'x-kubernetes-group-version-kind';
export const OPENAPI_PATCH_MERGE_KEY = 'x-kubernetes-patch-merge-key';
export const OPENAPI_PATCH_STRATEGY = 'x-kubernetes-patch-strategy';
export const OPENAPI_LIST_TYPE = 'x-kubernetes-list-type';
export const OPENAPI_LIST_MAP_KEYS = 'x-kubernetes-list-map-keys';
export const OPENAPI_MAP_TYPE = 'x-kubernetes-map-type';

/** Issuer of service account tokens unless `--service-account-issuer` says otherwise. */
export const DEFAULT_SA_ISSUER = `https://${GROUP_SUFFIX.split('.')[0]}-apiserver.${SYSTEM_NAMESPACE}.svc`;

/**
 * The reference's own meta group. Real kubectl asks for tables only as `as=Table;g=meta.k8s.io`; orch also
 * answers that form (echoing the group it was asked for) so that kubectl shows the server's columns. The
 * canonical form of spec 2.6 is META_GROUP.
 */
export const REFERENCE_META_GROUP_ALIAS = 'meta.k8s.io';
