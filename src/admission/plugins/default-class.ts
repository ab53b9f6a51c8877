/**
 * DefaultStorageClass and DefaultIngressClass (reference plugins, both on by default). On create, a claim
 * that names no storage class gets the default StorageClass, and an ingress that names no class gets the
 * default IngressClass; a class is the default when its is-default-class annotation is "true". With
 * several defaults the newest wins (ties by name), as the reference picks. Without one, nothing changes.
 */
import {
  BETA_DEFAULT_STORAGE_CLASS_ANNOTATION,
  BETA_STORAGE_CLASS_ANNOTATION,
  DEFAULT_INGRESS_CLASS_ANNOTATION,
  DEFAULT_STORAGE_CLASS_ANNOTATION,
  LEGACY_INGRESS_CLASS_ANNOTATION,
  NETWORKING_GROUP,
  STORAGE_GROUP,
} from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { noConfiguration } from './common.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export const DEFAULT_STORAGE_CLASS = 'DefaultStorageClass';
export const DEFAULT_INGRESS_CLASS = 'DefaultIngressClass';

const annotation = (o: ApiObject, key: string): unknown => (isObject(o.metadata?.annotations) ? o.metadata.annotations[key] : undefined);
const hasAnnotation = (o: ApiObject, key: string): boolean => isObject(o.metadata?.annotations) && key in o.metadata.annotations;

export const isDefaultStorageClass = (c: ApiObject): boolean =>
  annotation(c, DEFAULT_STORAGE_CLASS_ANNOTATION) === 'true' || annotation(c, BETA_DEFAULT_STORAGE_CLASS_ANNOTATION) === 'true';
export const isDefaultIngressClass = (c: ApiObject): boolean => annotation(c, DEFAULT_INGRESS_CLASS_ANNOTATION) === 'true';

const created = (c: ApiObject): number => {
  const t = Date.parse(String(c.metadata?.creationTimestamp ?? ''));
  return Number.isNaN(t) ? 0 : t;
};

/** The default among `classes`: of those `isDefault` accepts, the newest, then the first by name. */
export function newestDefault(classes: readonly ApiObject[], isDefault: (c: ApiObject) => boolean): ApiObject | undefined {
  let best: ApiObject | undefined;
  for (const c of classes) {
    if (!isDefault(c)) continue;
    if (!best) {
      best = c;
      continue;
    }
    const [tc, tb] = [created(c), created(best)];
    if (tc > tb || (tc === tb && String(c.metadata?.name ?? '') < String(best.metadata?.name ?? ''))) best = c;
  }
  return best;
}

/** What one of these plugins needs to know about its kind of object and its kind of class. */
interface ClassDefaulting {
  name: string;
  group: string;
  resource: string;
  classGroup: string;
  classResource: string;
  /** Whether the object already says which class it wants (an empty name counts: it means "none"). */
  hasClass(o: ApiObject, spec: Record<string, unknown>): boolean;
  isDefault(c: ApiObject): boolean;
  /** The spec field the default's name goes into. */
  field: string;
}

const named = (v: unknown) => v !== undefined && v !== null;

const STORAGE: ClassDefaulting = {
  name: DEFAULT_STORAGE_CLASS,
  group: '',
  resource: 'persistentvolumeclaims',
  classGroup: STORAGE_GROUP,
  classResource: 'storageclasses',
  hasClass: (o, spec) => hasAnnotation(o, BETA_STORAGE_CLASS_ANNOTATION) || named(spec.storageClassName),
  isDefault: isDefaultStorageClass,
  field: 'storageClassName',
};

const INGRESS: ClassDefaulting = {
  name: DEFAULT_INGRESS_CLASS,
  group: NETWORKING_GROUP,
  resource: 'ingresses',
  classGroup: NETWORKING_GROUP,
  classResource: 'ingressclasses',
  hasClass: (o, spec) => named(spec.ingressClassName) || hasAnnotation(o, LEGACY_INGRESS_CLASS_ANNOTATION),
  isDefault: isDefaultIngressClass,
  field: 'ingressClassName',
};

export class DefaultClassPlugin implements AdmissionPlugin {
  readonly name: string;

  constructor(
    private readonly objects: ObjectReader,
    private readonly what: ClassDefaulting,
  ) {
    this.name = what.name;
  }

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  admit(req: AdmissionRequest): Promise<void> | void {
    const w = this.what;
    if (req.resource.resource !== w.resource || req.resource.group !== w.group || req.subResource !== '') return;
    const o = req.object;
    if (!o || !isObject(o.spec) || w.hasClass(o, o.spec)) return;
    return this.setDefault(o.spec);
  }

  private async setDefault(spec: Record<string, unknown>): Promise<void> {
    const classes = await this.objects.list(this.what.classGroup, this.what.classResource);
    const dflt = newestDefault(classes, this.what.isDefault);
    if (dflt?.metadata?.name) spec[this.what.field] = dflt.metadata.name;
  }
}

export function defaultStorageClassPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(DEFAULT_STORAGE_CLASS, configuration);
  return new DefaultClassPlugin(deps.objects, STORAGE);
}

export function defaultIngressClassPlugin(deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(DEFAULT_INGRESS_CLASS, configuration);
  return new DefaultClassPlugin(deps.objects, INGRESS);
}
