/** Secret type names and keys with the maker token, built from naming.ts so no other spelling exists. */
import { GROUP_SUFFIX } from '../../../api/naming.js';

/** Secret types with built-in rules; the maker-token ones are spelled from GROUP_SUFFIX. */
export const SECRET_TYPES = {
  opaque: 'Opaque',
  serviceAccountToken: `${GROUP_SUFFIX}/service-account-token`,
  dockercfg: `${GROUP_SUFFIX}/dockercfg`,
  dockerConfigJson: `${GROUP_SUFFIX}/dockerconfigjson`,
  basicAuth: `${GROUP_SUFFIX}/basic-auth`,
  sshAuth: `${GROUP_SUFFIX}/ssh-auth`,
  tls: `${GROUP_SUFFIX}/tls`,
} as const;

/** Annotation naming the service account a token secret belongs to. */
export const SERVICE_ACCOUNT_NAME_ANNOTATION = `${GROUP_SUFFIX}/service-account.name`;
