import type { ResourceType } from '../../types.js';
import { csiDrivers } from './csi-driver.js';
import { csiNodes } from './csi-node.js';
import { csiStorageCapacities } from './csi-storage-capacity.js';
import { storageClasses } from './storage-class.js';
import { volumeAttachments } from './volume-attachment.js';

/** Types of this group with behaviour of their own; the group's other resources are served from the reference data alone. */
export const storageTypes: ResourceType[] = [storageClasses, csiDrivers, csiNodes, csiStorageCapacities, volumeAttachments];
