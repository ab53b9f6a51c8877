/**
 * Memory and CPU of a process and its descendants (a supervisor and its --workers) from /proc, for the soak.
 * Linux only; a process that is gone between listing and reading simply drops out of the sample.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A `Name: N kB` line (VmRSS, RssAnon, ...) of a /proc/<pid>/status text, in KiB. */
export function parseVmRssKiB(status: string, field = 'VmRSS'): number | undefined {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) : undefined;
}

/** utime + stime (clock ticks) and the parent pid of a /proc/<pid>/stat line; the name in parentheses may hold spaces. */
export function parseStat(stat: string): { ppid: number; ticks: number } | undefined {
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const f = stat.slice(close + 2).split(' '); // f[0] is field 3 (state)
  const ppid = Number(f[1]), utime = Number(f[11]), stime = Number(f[12]);
  return Number.isFinite(ppid) && Number.isFinite(utime) && Number.isFinite(stime) ? { ppid, ticks: utime + stime } : undefined;
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** `pid` and every descendant, by parent pid over /proc (works without CONFIG_PROC_CHILDREN). */
export function processTree(pid: number): number[] {
  const parent = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = read(`/proc/${name}/stat`);
    const p = st ? parseStat(st) : undefined;
    if (!p) continue;
    const list = parent.get(p.ppid);
    if (list) list.push(Number(name));
    else parent.set(p.ppid, [Number(name)]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of parent.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

export interface TreeSample {
  /** Sum over the tree, MiB. */
  rssMiB: number;
  /** Of which anonymous memory (heap, not mapped files), MiB. */
  anonMiB: number;
  perProcess: Array<{ pid: number; rssMiB: number; anonMiB: number }>;
  /** CPU seconds used so far by the processes alive now (assumes 100 ticks per second, Linux's USER_HZ). */
  cpuSeconds: number;
}

const exe = (pid: number): string | undefined => {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
};

/**
 * The server and its workers: descendants running the same executable as `pid`. Helpers it started (the
 * esbuild service left by a bundle rebuild) are not the server's memory.
 */
export function sampleTree(pid: number): TreeSample | undefined {
  const perProcess: TreeSample['perProcess'] = [];
  let ticks = 0;
  const own = exe(pid);
  for (const p of processTree(pid)) {
    if (p !== pid && own !== undefined && exe(p) !== own) continue;
    const status = read(`/proc/${p}/status`);
    const stat = read(`/proc/${p}/stat`);
    const kib = status ? parseVmRssKiB(status) : undefined;
    if (kib === undefined) continue;
    perProcess.push({ pid: p, rssMiB: kib / 1024, anonMiB: (parseVmRssKiB(status!, 'RssAnon') ?? NaN) / 1024 });
    ticks += (stat ? parseStat(stat)?.ticks : 0) ?? 0;
  }
  if (perProcess.length === 0) return undefined;
  const sum = (f: (x: TreeSample['perProcess'][number]) => number) => perProcess.reduce((a, x) => a + f(x), 0);
  return { rssMiB: sum((x) => x.rssMiB), anonMiB: sum((x) => x.anonMiB), perProcess, cpuSeconds: ticks / 100 };
}

/** The child of this process whose command line contains `marker` (the benchmarks' child servers). */
export function childPidWith(marker: string): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = read(`/proc/${name}/stat`);
    if (!st || parseStat(st)?.ppid !== process.pid) continue;
    if ((read(`/proc/${name}/cmdline`) ?? '').split('\0').some((a) => a.includes(marker))) return Number(name);
  }
  return undefined;
}
