/** Secret type names and keys with the maker token, built from naming.ts so no other spelling exists. */
import { LABEL_DOMAIN } from '../../../api/naming.js';

/** Secret types with built-in rules; the maker-token ones are spelled from LABEL_DOMAIN. */
export const SECRET_TYPES = {
  opaque: 'Opaque',
  serviceAccountToken: `${LABEL_DOMAIN}/service-account-token`,
  dockercfg: `${LABEL_DOMAIN}/dockercfg`,
  dockerConfigJson: `${LABEL_DOMAIN}/dockerconfigjson`,
  basicAuth: `${LABEL_DOMAIN}/basic-auth`,
  sshAuth: `${LABEL_DOMAIN}/ssh-auth`,
  tls: `${LABEL_DOMAIN}/tls`,
} as const;

/** Annotation naming the service account a token secret belongs to. */
export const SERVICE_ACCOUNT_NAME_ANNOTATION = `${LABEL_DOMAIN}/service-account.name`;
