/**
 * `npm run bench -- metrics`: how long `/metrics` takes to answer on a server with at least 60 resource
 * types that have been requested (so their request, latency and storage series exist) and 1,000 open
 * watches. The bar: 50 ms.
 */
import { connect, type ClientHttp2Session } from 'node:http2';
import { startServer } from '../src/index.js';

const WATCHERS = 1000;
const TYPES = 60;
const SCRAPES = 50;
const STREAMS_PER_SESSION = 50;

export async function main(): Promise<void> {
  // All API versions on: the built-in groups then serve well over 60 resource types.
  const server = await startServer({ port: 0, storage: { type: 'memory' }, runtimeConfig: 'api/all=true' });
  const sessions: ClientHttp2Session[] = [];
  const session = () => {
    const s = connect(server.url, { ca: server.caCertPem });
    s.on('error', () => undefined);
    sessions.push(s);
    return s;
  };
  const auth = { authorization: `Bearer ${server.adminToken}` };
  const get = (s: ClientHttp2Session, path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = s.request({ ':path': path, ...auth });
      let status = 0;
      let body = '';
      req.on('response', (h) => (status = Number(h[':status'])));
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => resolve({ status, body }));
      req.on('error', reject);
      req.end();
    });
  try {
    const main = session();
    // Every listable resource type the server serves, as discovery names them.
    const paths: string[] = [];
    const core = JSON.parse((await get(main, '/api/v1')).body) as { resources: { name: string; verbs: string[] }[] };
    for (const r of core.resources) if (!r.name.includes('/') && r.verbs.includes('watch')) paths.push(`/api/v1/${r.name}`);
    // Every version of every group (with all API versions served), so that there are at least 60 types.
    const groups = JSON.parse((await get(main, '/apis')).body) as { groups: { versions: { groupVersion: string }[] }[] };
    for (const gv of groups.groups.flatMap((g) => g.versions.map((v) => v.groupVersion))) {
      const list = JSON.parse((await get(main, `/apis/${gv}`)).body) as { resources: { name: string; verbs: string[] }[] };
      for (const r of list.resources) if (!r.name.includes('/') && r.verbs.includes('watch')) paths.push(`/apis/${gv}/${r.name}`);
    }
    if (paths.length < TYPES) throw new Error(`only ${paths.length} watchable resource types`);
    // Requests on every type: request, latency and storage series for each.
    for (const p of paths) await get(main, p);
    let open = 0;
    let s = session();
    const watches: Promise<unknown>[] = [];
    for (let i = 0; i < WATCHERS; i++) {
      if (i > 0 && i % STREAMS_PER_SESSION === 0) s = session();
      const req = s.request({ ':path': `${paths[i % paths.length]}?watch=1&timeoutSeconds=600`, ...auth });
      watches.push(new Promise<void>((resolve) => req.on('response', () => (open++, resolve()))));
      req.on('error', () => undefined);
      req.on('data', () => undefined);
    }
    await Promise.all(watches);
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < SCRAPES; i++) {
      const t = performance.now();
      const r = await get(main, '/metrics');
      times.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
      bytes = r.body.length;
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] as number).toFixed(1);
    console.log(`/metrics with ${paths.length} resource types requested and ${open} open watches (${(bytes / 1024).toFixed(0)} KiB answer, ${SCRAPES} scrapes)`);
    console.log(`| median | p90 | max | bar |`);
    console.log(`|---|---|---|---|`);
    console.log(`| ${at(0.5)} ms | ${at(0.9)} ms | ${at(1)} ms | 50 ms |`);
  } finally {
    for (const s of sessions) s.destroy();
    await server.close();
  }
}
