/** Port names (IANA_SVC_NAME), shared by container ports, service ports and named target ports. */

const PORT_NAME_MAX = 15;

/** The reference's IsValidPortName rules and messages. */
export function isValidPortName(name: string): string[] {
  const errs: string[] = [];
  if (name.length > PORT_NAME_MAX) errs.push(`must be no more than ${PORT_NAME_MAX} characters`);
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const;
