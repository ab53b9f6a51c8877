/**
 * `npm run bench -- custom-schema [iterations]`: the cost of a CRD version's schema engine (issue 18):
 * compiling the schema once, and per request defaulting + validating (with two CEL rules, one a
 * transition rule) a realistic custom resource.
 */
import type { ApiObject } from '../src/api/types.js';
import { compileCustomSchema } from '../src/registry/custom/schema/index.js';
import { databaseObject, databaseSchema } from '../src/registry/custom/schema/fixture.js';

const PATH = 'spec.versions[0].schema.openAPIV3Schema';

function opsPerSecond(n: number, run: () => void): number {
  for (let i = 0; i < Math.min(1000, n); i++) run(); // warm up
  const start = performance.now();
  for (let i = 0; i < n; i++) run();
  return Math.round(n / ((performance.now() - start) / 1000));
}

export async function main(args: string[]): Promise<void> {
  const n = Number(args[0] ?? 20_000);
  const compileRate = opsPerSecond(Math.max(1, Math.floor(n / 20)), () => compileCustomSchema(databaseSchema, PATH));
  const { schema } = compileCustomSchema(databaseSchema, PATH);
  if (!schema) throw new Error('the benchmark schema does not compile');
  const old = databaseObject() as unknown as ApiObject;
  const create = opsPerSecond(n, () => {
    const o = databaseObject() as unknown as ApiObject;
    schema.applyDefaults(o);
    schema.validate(o);
  });
  const update = opsPerSecond(n, () => {
    const o = databaseObject() as unknown as ApiObject;
    schema.applyDefaults(o);
    schema.validate(o, old);
  });
  const defaultsOnly = opsPerSecond(n, () => schema.applyDefaults(databaseObject() as unknown as ApiObject));
  console.table([
    { step: 'compile schema (once per CRD version)', 'ops/s': compileRate },
    { step: 'defaults + validate (create)', 'ops/s': create },
    { step: 'defaults + validate (update, transition rule)', 'ops/s': update },
    { step: 'defaults only (read from storage)', 'ops/s': defaultsOnly },
  ]);
}
