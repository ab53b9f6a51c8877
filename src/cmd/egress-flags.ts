/** `--egress-selector-config-file`: the file is read and checked here, before any server process starts. */
import { resolve } from 'node:path';
import { loadEgressSelector } from '../egress/index.js';

export const EGRESS_FLAG_OPTIONS = { 'egress-selector-config-file': { type: 'string' } } as const;

export const EGRESS_USAGE = `  --egress-selector-config-file=PATH   EgressSelectorConfiguration: how webhook and etcd calls leave the server (Direct, or an HTTP CONNECT proxy)
`;

export function egressFlags(values: { 'egress-selector-config-file'?: string }, opts: { egressSelectorConfigFile?: string }): void {
  const file = values['egress-selector-config-file'];
  if (file === undefined) return;
  if (file === '') throw new Error('--egress-selector-config-file: a file path is required');
  opts.egressSelectorConfigFile = resolve(file);
  loadEgressSelector(opts.egressSelectorConfigFile, () => undefined); // the server logs deprecations when it starts
}
