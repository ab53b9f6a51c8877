/** Every orchctl command, in the order `--help` lists them. Each file registers its own. */
import type { RegisterCommand } from '../contract.js';
import { registerGet } from './get.js';
import { registerApiResources } from './api-resources.js';
import { registerVersion } from './version.js';
import { registerConfig } from './config.js';
import { registerDescribe } from './describe.js';
import { registerExplain } from './explain.js';
import { registerAuth } from './auth.js';
import { registerCertificate } from './certificate.js';
import { registerCreateGenerators } from './create-generators.js';
import { registerCreateToken } from './create-token.js';
import { registerCreateFromFiles } from './create-file.js';
import { registerApply } from './apply.js';
import { registerReplace } from './replace.js';
import { registerPatch } from './patch.js';
import { registerEdit } from './edit.js';
import { registerDelete } from './delete.js';
import { registerLabel } from './label.js';
import { registerAnnotate } from './annotate.js';
import { registerScale } from './scale.js';
import { registerWait } from './wait.js';
import { registerLogs } from './logs.js';
import { registerConvert } from './convert.js';

export const COMMANDS: RegisterCommand[] = [
  registerGet, registerDescribe, registerExplain, registerApiResources, registerVersion, registerConfig,
  registerCreateGenerators, registerCreateToken, registerAuth, registerCertificate,
  registerCreateFromFiles, registerApply, registerReplace, registerPatch, registerEdit, registerDelete,
  registerLabel, registerAnnotate, registerScale, registerWait, registerLogs, registerConvert,
];
