/**
 * AlwaysPullImages (reference plugin, off by default). Every container of a pod (init and ephemeral ones
 * too) gets `imagePullPolicy: Always`, so a node pulls, and so checks the pod's pull credentials, before it
 * reuses a cached private image. Updates that bring no image the pod did not already have are left alone;
 * the validating stage refuses a pod whose policy a later mutating plugin changed back.
 */
import { forbiddenFor, noConfiguration } from './common.js';
import { forEachContainer, isPodWrite, specOf, type Obj } from './pod-request.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest } from '../types.js';

export const ALWAYS_PULL_IMAGES = 'AlwaysPullImages';
const ALWAYS = 'Always';

/** Whether the update's pod uses only images the old pod already used (in any container). */
export function onlyKnownImages(spec: Obj, oldSpec: Obj): boolean {
  const known = new Set<unknown>();
  forEachContainer(oldSpec, (c) => void known.add(c.image));
  let fresh = false;
  forEachContainer(spec, (c) => {
    if (!known.has(c.image)) fresh = true;
  });
  return !fresh;
}

/** The field errors of containers whose policy is not Always, in the reference's NotSupported wording. */
export function pullPolicyViolations(spec: Obj): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  forEachContainer(spec, (c, path) => {
    if (c.imagePullPolicy === ALWAYS) return;
    const field = `${path}.imagePullPolicy`;
    out.push({ field, message: `${field}: Unsupported value: ${JSON.stringify(c.imagePullPolicy ?? '')}: supported values: "${ALWAYS}"` });
  });
  return out;
}

export class AlwaysPullImagesPlugin implements AdmissionPlugin {
  readonly name = ALWAYS_PULL_IMAGES;

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  admit(req: AdmissionRequest): void {
    const spec = this.subject(req);
    if (spec) forEachContainer(spec, (c) => void (c.imagePullPolicy = ALWAYS));
  }

  validate(req: AdmissionRequest): void {
    const spec = this.subject(req);
    if (!spec) return;
    const bad = pullPolicyViolations(spec);
    if (bad.length === 0) return;
    const why = bad.length === 1 ? bad[0]!.message : `[${bad.map((b) => b.message).join(', ')}]`;
    throw forbiddenFor(req, why, bad.map((b) => ({ reason: 'FieldValueNotSupported', message: b.message, field: b.field })));
  }

  /** The pod spec this request asks the plugin about, or undefined when it leaves the request alone. */
  private subject(req: AdmissionRequest): Obj | undefined {
    if (!isPodWrite(req)) return undefined;
    const spec = specOf(req.object);
    if (!spec) return undefined;
    if (req.operation === 'UPDATE') {
      const oldSpec = specOf(req.oldObject);
      if (oldSpec && onlyKnownImages(spec, oldSpec)) return undefined;
    }
    return spec;
  }
}

export function alwaysPullImagesPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(ALWAYS_PULL_IMAGES, configuration);
  return new AlwaysPullImagesPlugin();
}
