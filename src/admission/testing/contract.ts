/**
 * The contract every AdmissionPlugin keeps (spec 1.6), as one suite each implementation runs with requests
 * of its own choosing:
 * - a plugin is never asked about an operation it does not handle (the chain skips it);
 * - `validate` changes nothing (its input is deep-frozen here, so a write throws);
 * - every rejection is a StatusError with a 4xx code;
 * - admitting the same request twice gives the same outcome and the same object.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { AdmissionChain } from '../chain.js';
import type { AdmissionOperation, AdmissionPlugin, AdmissionRequest, ObjectReader } from '../types.js';

export interface ContractCase {
  /** What the request is, for the test titles. */
  title: string;
  request: () => AdmissionRequest;
}

export interface ContractOptions {
  /** Builds a fresh plugin (each check gets its own). */
  make: () => AdmissionPlugin;
  /** Requests the plugin admits and ones it rejects; between them every stage the plugin has is exercised. */
  cases: ContractCase[];
}

const OPERATIONS: AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** A request with defaults for what a case leaves out. */
export function admissionRequest(over: Partial<AdmissionRequest> & Pick<AdmissionRequest, 'operation'>): AdmissionRequest {
  const kind = over.kind ?? { group: '', version: 'v1', kind: 'ConfigMap' };
  const resource = over.resource ?? { group: '', version: 'v1', resource: 'configmaps' };
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  return {
    uid: 'c0ffee00-0000-4000-8000-000000000001',
    kind,
    resource,
    subResource: '',
    requestKind: kind,
    requestResource: resource,
    requestSubResource: over.subResource ?? '',
    namespace: 'default',
    name: '',
    object: undefined,
    oldObject: undefined,
    options: undefined,
    dryRun: false,
    user: { username: 'alice', groups: ['system:authenticated'] },
    warn: (m) => void warnings.push(m),
    annotate: (k, v) => void (annotations[k] = v),
    ...over,
  };
}

/** An ObjectReader over fixed objects, keyed `<group>/<resource>`; with `peek` unless `withPeek` is false. */
export function fixedObjects(objects: Record<string, ApiObject[]>, withPeek = true): ObjectReader {
  const matching = (group: string, resource: string, namespace: string | undefined) =>
    (objects[`${group}/${resource}`] ?? []).filter((o) => namespace === undefined || (o.metadata?.namespace ?? '') === namespace);
  const find = (group: string, resource: string, namespace: string | undefined, name: string) =>
    matching(group, resource, namespace).find((o) => o.metadata?.name === name);
  return {
    get: async (g, r, ns, n) => find(g, r, ns, n),
    list: async (g, r, ns) => matching(g, r, ns),
    ...(withPeek ? { peek: find } : {}),
  };
}

export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as Record<string, unknown>)) deepFreeze(x);
  }
  return v;
}

/** What one stage did: the error it threw (or undefined) and the object after it. */
async function outcome(stage: () => Promise<void> | undefined, req: AdmissionRequest): Promise<{ error: unknown; object: string }> {
  let error: unknown;
  try {
    await stage();
  } catch (e) {
    error = e;
  }
  return { error, object: JSON.stringify(req.object ?? null) };
}

function assertRejection(e: unknown, where: string): void {
  if (e === undefined) return;
  assert.ok(e instanceof StatusError, `${where}: a rejection must be a StatusError, got ${String(e)}`);
  assert.ok(e.code >= 400 && e.code < 500, `${where}: a rejection must be 4xx, got ${e.code}`);
}

/** Registers the contract tests for one plugin. */
export function admissionPluginContract(name: string, opts: ContractOptions): void {
  test(`spec 1.6 admission contract (${name}): the chain never calls the plugin for an operation it does not handle`, async () => {
    const plugin = opts.make();
    const calls: AdmissionOperation[] = [];
    const spy: AdmissionPlugin = {
      name: plugin.name,
      handles: (op) => plugin.handles(op),
      admit: (req) => void calls.push(req.operation),
      validate: (req) => void calls.push(req.operation),
    };
    const chain = new AdmissionChain([spy]);
    for (const op of OPERATIONS) {
      const req = admissionRequest({ operation: op });
      await chain.admit(req);
      await chain.validate(req);
    }
    const handled = OPERATIONS.filter((op) => plugin.handles(op));
    assert.deepEqual(calls, handled.flatMap((op) => [op, op]));
  });

  const hasValidate = Boolean(opts.make().validate);
  for (const c of opts.cases) {
    if (hasValidate) test(`spec 1.6 admission contract (${name}): ${c.title}: validate leaves a deep-frozen request unchanged and rejects only with a 4xx StatusError`, async () => {
      const plugin = opts.make();
      const req = c.request();
      assert.ok(plugin.handles(req.operation), 'each case is an operation the plugin handles');
      deepFreeze(req.object);
      deepFreeze(req.oldObject);
      const before = JSON.stringify(req.object ?? null);
      const got = await outcome(() => plugin.validate!(req) ?? undefined, req);
      // A write to a frozen object throws a TypeError, which is not a StatusError: caught by assertRejection.
      assertRejection(got.error, 'validate');
      assert.equal(got.object, before);
    });

    test(`spec 1.6 admission contract (${name}): ${c.title}: admitting the same request twice gives the same outcome and object; rejections are 4xx StatusErrors`, async () => {
      const runs = [];
      for (let i = 0; i < 2; i++) {
        const chain = new AdmissionChain([opts.make()]);
        const req = c.request();
        const admitted = await outcome(() => chain.admit(req), req);
        const validated = admitted.error ? admitted : await outcome(() => chain.validate(req), req);
        assertRejection(admitted.error, 'admit');
        assertRejection(validated.error, 'validate');
        runs.push({ object: validated.object, error: (validated.error as Error | undefined)?.message ?? null });
      }
      assert.deepEqual(runs[1], runs[0]);
    });
  }
}
