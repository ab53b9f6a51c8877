/**
 * Which node may read which object (the reference's node authorization graph), kept incrementally from
 * pods, persistent volumes and volume attachments. The edges the reference draws are:
 *   secret | configmap | serviceaccount | pvc | resourceclaim -> pod -> node   (pod.spec.nodeName)
 *   pv -> pvc (pv.spec.claimRef),  secret -> pv (the volume's node-side secrets),  volumeattachment -> node
 * Pod edges are materialised as an index from object key to the nodes (with a pod count) that reach it,
 * so a pod event costs O(that pod's references). The PV hop is resolved at question time through the
 * claim's entry: PVs and their secrets are few, and this keeps pod events from touching PVs.
 */
import type { ApiObject } from '../../api/types.js';
import {
  visitPersistentVolumeSecrets,
  visitPodClaimNames,
  visitPodConfigMapNames,
  visitPodResourceClaimNames,
  visitPodSecretNames,
} from '../../util/pod-references.js';

/** The object kinds a node's access is decided for through the graph. */
export type NodeGraphKind =
  | 'secret'
  | 'configmap'
  | 'serviceaccount'
  | 'persistentvolumeclaim'
  | 'persistentvolume'
  | 'resourceclaim'
  | 'volumeattachment';

const keyOf = (kind: NodeGraphKind, namespace: string, name: string) => `${kind}/${namespace}/${name}`;
const nameOf = (o: ApiObject) => o.metadata?.name ?? '';
const namespaceOf = (o: ApiObject) => o.metadata?.namespace ?? '';
const field = (o: ApiObject, a: string, b: string): string => {
  const inner = o[a] as Record<string, unknown> | undefined;
  const v = typeof inner === 'object' && inner !== null ? inner[b] : undefined;
  return typeof v === 'string' ? v : '';
};

interface PodEntry {
  readonly node: string;
  readonly refs: readonly string[];
}

interface VolumeEntry {
  /** Key of the claim the volume is bound to, '' when unbound. */
  readonly claim: string;
  readonly secrets: readonly string[];
}

/** The object keys a bound pod makes readable to its node (deduplicated). */
function podReferences(pod: ApiObject): string[] {
  const ns = namespaceOf(pod);
  const refs = new Set<string>();
  visitPodSecretNames(pod, (n) => refs.add(keyOf('secret', ns, n)));
  visitPodConfigMapNames(pod, (n) => refs.add(keyOf('configmap', ns, n)));
  visitPodClaimNames(pod, (n) => refs.add(keyOf('persistentvolumeclaim', ns, n)));
  visitPodResourceClaimNames(pod, (n) => refs.add(keyOf('resourceclaim', ns, n)));
  const sa = field(pod, 'spec', 'serviceAccountName');
  if (sa !== '') refs.add(keyOf('serviceaccount', ns, sa));
  return [...refs];
}

export class NodeGraph {
  private readonly pods = new Map<string, PodEntry>();
  /** Object key -> node -> number of that node's pods referencing it. */
  private readonly readers = new Map<string, Map<string, number>>();
  private readonly volumes = new Map<string, VolumeEntry>();
  /** Secret key -> names of the volumes naming it. */
  private readonly volumesBySecret = new Map<string, Set<string>>();
  private readonly attachments = new Map<string, string>();

  /** A pod was created or changed: its node now reaches what it references (nothing when unscheduled). */
  upsertPod(pod: ApiObject): void {
    const podKey = `${namespaceOf(pod)}/${nameOf(pod)}`;
    const node = field(pod, 'spec', 'nodeName');
    const next: PodEntry | undefined = node === '' ? undefined : { node, refs: podReferences(pod) };
    const prev = this.pods.get(podKey);
    if (prev && next && prev.node === next.node && sameList(prev.refs, next.refs)) return;
    if (prev) this.unlinkPod(prev);
    if (next) {
      this.pods.set(podKey, next);
      for (const r of next.refs) adjust(this.readers, r, next.node, 1);
    } else this.pods.delete(podKey);
  }

  removePod(namespace: string, name: string): void {
    const podKey = `${namespace}/${name}`;
    const prev = this.pods.get(podKey);
    if (!prev) return;
    this.unlinkPod(prev);
    this.pods.delete(podKey);
  }

  upsertPersistentVolume(pv: ApiObject): void {
    const name = nameOf(pv);
    this.removePersistentVolume(name);
    const claimNs = claimRefPart(pv, 'namespace');
    const claimName = claimRefPart(pv, 'name');
    const secrets = new Set<string>();
    visitPersistentVolumeSecrets(pv, (ns, n) => secrets.add(keyOf('secret', ns, n)));
    const entry: VolumeEntry = { claim: claimName === '' ? '' : keyOf('persistentvolumeclaim', claimNs, claimName), secrets: [...secrets] };
    this.volumes.set(name, entry);
    for (const s of entry.secrets) {
      let names = this.volumesBySecret.get(s);
      if (!names) this.volumesBySecret.set(s, (names = new Set()));
      names.add(name);
    }
  }

  removePersistentVolume(name: string): void {
    const prev = this.volumes.get(name);
    if (!prev) return;
    this.volumes.delete(name);
    for (const s of prev.secrets) {
      const names = this.volumesBySecret.get(s);
      names?.delete(name);
      if (names?.size === 0) this.volumesBySecret.delete(s);
    }
  }

  upsertVolumeAttachment(va: ApiObject): void {
    const node = field(va, 'spec', 'nodeName');
    if (node === '') this.attachments.delete(nameOf(va));
    else this.attachments.set(nameOf(va), node);
  }

  removeVolumeAttachment(name: string): void {
    this.attachments.delete(name);
  }

  /** After a relist: the graph holds exactly these pods (and keeps its volumes and attachments). */
  replacePods(pods: Iterable<ApiObject>): void {
    const seen = new Set<string>();
    for (const p of pods) {
      seen.add(`${namespaceOf(p)}/${nameOf(p)}`);
      this.upsertPod(p);
    }
    for (const k of [...this.pods.keys()]) if (!seen.has(k)) this.removePod(k.slice(0, k.indexOf('/')), k.slice(k.indexOf('/') + 1));
  }

  replacePersistentVolumes(pvs: Iterable<ApiObject>): void {
    const seen = new Set<string>();
    for (const pv of pvs) {
      seen.add(nameOf(pv));
      this.upsertPersistentVolume(pv);
    }
    for (const n of [...this.volumes.keys()]) if (!seen.has(n)) this.removePersistentVolume(n);
  }

  replaceVolumeAttachments(vas: Iterable<ApiObject>): void {
    this.attachments.clear();
    for (const va of vas) this.upsertVolumeAttachment(va);
  }

  /** Whether `node` reaches the object along the graph's edges. */
  hasPath(node: string, kind: NodeGraphKind, namespace: string, name: string): boolean {
    if (kind === 'volumeattachment') return this.attachments.get(name) === node;
    if (kind === 'persistentvolume') return this.volumeReadBy(this.volumes.get(name), node);
    const key = keyOf(kind, namespace, name);
    if (this.readBy(key, node)) return true;
    if (kind !== 'secret') return false;
    const volumes = this.volumesBySecret.get(key);
    if (!volumes) return false;
    for (const v of volumes) if (this.volumeReadBy(this.volumes.get(v), node)) return true;
    return false;
  }

  private volumeReadBy(entry: VolumeEntry | undefined, node: string): boolean {
    return entry !== undefined && entry.claim !== '' && this.readBy(entry.claim, node);
  }

  private readBy(key: string, node: string): boolean {
    return (this.readers.get(key)?.get(node) ?? 0) > 0;
  }

  private unlinkPod(entry: PodEntry): void {
    for (const r of entry.refs) adjust(this.readers, r, entry.node, -1);
  }
}

function claimRefPart(pv: ApiObject, part: 'namespace' | 'name'): string {
  const spec = pv.spec as Record<string, unknown> | undefined;
  const ref = spec && typeof spec.claimRef === 'object' && spec.claimRef !== null ? (spec.claimRef as Record<string, unknown>) : undefined;
  const v = ref?.[part];
  return typeof v === 'string' ? v : '';
}

function adjust(index: Map<string, Map<string, number>>, key: string, node: string, by: 1 | -1): void {
  let nodes = index.get(key);
  if (!nodes) {
    if (by < 0) return;
    index.set(key, (nodes = new Map()));
  }
  const n = (nodes.get(node) ?? 0) + by;
  if (n > 0) nodes.set(node, n);
  else {
    nodes.delete(node);
    if (nodes.size === 0) index.delete(key);
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
