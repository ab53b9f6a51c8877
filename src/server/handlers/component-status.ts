/**
 * ComponentStatus (deprecated, read-only, not stored): each GET or list probes the components now, as the
 * reference does: storage through this server's own health check, the scheduler and the controller manager
 * at the reference's local health addresses.
 */
import { request } from 'node:https';
import { PROTOBUF_MEDIA_TYPE } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { encode, JSON_MEDIA, YAML_MEDIA } from '../../encoding/index.js';
import { methodNotAllowed, notFound, notFoundMessage } from '../../errors/index.js';
import type { Registry } from '../../registry/index.js';
import { componentStatusObject, type ProbeResult } from '../../registry/resources/core-extra/index.js';
import { deprecationOf } from '../../registry/resources/deprecated-versions.js';
import { auditDeprecation } from '../audit-stage.js';
import { header, sendBytes } from '../http.js';
import { warningHeaderValues } from '../warning-header.js';
import { negotiateWithTables, tableFor } from './table-output.js';
import type { ResourceContext } from './resource.js';

/** How long one probe may take; the reference allows 20 s, which is long for a `kubectl get`. */
const PROBE_TIMEOUT_MS = 2000;

export type HttpProbe = (url: string) => Promise<ProbeResult>;

/** The reference's wording of a failed HTTP probe (Go's client errors), from Node's error. */
export function probeErrorText(url: string, e: { code?: string; message?: string }): string {
  const host = new URL(url).host;
  if (e.code === 'ECONNREFUSED') return `Get "${url}": dial tcp ${host}: connect: connection refused`;
  if (e.code === 'ETIMEDOUT') return `Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  return `Get "${url}": ${e.message ?? String(e)}`;
}

/** An HTTPS GET with no certificate check, as the reference's probe: 2xx/3xx is healthy, its body the message. */
export const httpsProbe: HttpProbe = (url) =>
  new Promise((resolve) => {
    const req = request(url, { rejectUnauthorized: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        if (code >= 200 && code < 400) resolve({ result: 'success', message: body, error: '' });
        else resolve({ result: 'failure', message: `HTTP probe failed with statuscode: ${code}`, error: '' });
      });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (e) => resolve({ result: 'failure', message: probeErrorText(url, e as { code?: string }), error: '' }));
    req.end();
  });

/** Storage answers its current revision: the same check as the server's `etcd` health check. */
async function storageProbe(registry: Registry): Promise<ProbeResult> {
  try {
    await registry.backend.currentRevision();
    return { result: 'success', message: 'ok', error: '' };
  } catch (e) {
    return { result: 'failure', message: '', error: (e as Error).message ?? String(e) };
  }
}

/** The components, in the order a list shows them. */
function components(registry: Registry, http: HttpProbe): [string, () => Promise<ProbeResult>][] {
  return [
    ['scheduler', () => http('https://127.0.0.1:10259/healthz')],
    ['controller-manager', () => http('https://127.0.0.1:10257/healthz')],
    ['etcd-0', () => storageProbe(registry)],
  ];
}

/** The Table without its Age column: these objects have no creation time, and the reference shows none. */
function withoutAge(table: Record<string, unknown>): Record<string, unknown> {
  const defs = table.columnDefinitions as { name: string }[];
  const at = defs.findIndex((d) => d.name === 'Age');
  if (at < 0) return table;
  const rows = (table.rows as { cells: unknown[] }[]).map((r) => ({ ...r, cells: r.cells.filter((_, i) => i !== at) }));
  return { ...table, columnDefinitions: defs.filter((_, i) => i !== at), rows };
}

export async function serveComponentStatuses(ctx: ResourceContext, respond: (code: number, obj: unknown) => void, http: HttpProbe = httpsProbe): Promise<void> {
  const { info, registry } = ctx;
  if (info.namespace) throw notFoundMessage('the server could not find the requested resource');
  if (info.subresource) throw notFoundMessage('the server could not find the requested resource');
  // Served only while the type is (the runtime configuration may turn it off).
  const type = registry.store('', 'v1', 'componentstatuses')?.type;
  if (!type) throw notFoundMessage('the server could not find the requested resource');
  if (info.verb !== 'get' && info.verb !== 'list') throw methodNotAllowed(ctx.req.method ?? '', 'componentstatuses');
  const wanted = components(registry, http).filter(([name]) => info.verb === 'list' || name === info.name);
  if (wanted.length === 0) throw notFound({ resource: 'componentstatus', name: info.name });
  const items: ApiObject[] = await Promise.all(wanted.map(async ([name, probe]) => componentStatusObject(name, await probe())));
  // Deprecated (spec 7): every answer carries the warning.
  const deprecation = deprecationOf('', 'v1', 'componentstatuses');
  const warning = deprecation?.warning;
  if (deprecation) auditDeprecation(ctx.audit, deprecation.removedRelease);
  if (deprecation) ctx.metrics?.deprecatedApi('', 'v1', 'componentstatuses', info.subresource, deprecation.removedRelease);
  ctx.warnings = warning ? [warning] : [];
  const rep = negotiateWithTables(header(ctx.req, 'accept'), [JSON_MEDIA, YAML_MEDIA, PROTOBUF_MEDIA_TYPE]);
  if (rep.as) {
    if (warning) ctx.res.setHeader('Warning', warningHeaderValues([warning]));
    // Tables have no protobuf form here: JSON, as for stored types.
    const media = rep.mediaType === PROTOBUF_MEDIA_TYPE ? JSON_MEDIA : rep.mediaType;
    const table = withoutAge(tableFor(type, rep, items, ctx.query) as Record<string, unknown>);
    return sendBytes(ctx.res, 200, media, ctx.req.method === 'HEAD' ? Buffer.alloc(0) : encode(table, media));
  }
  if (info.verb === 'get') return respond(200, items[0]);
  respond(200, { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items });
}
