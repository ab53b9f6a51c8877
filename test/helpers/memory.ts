/**
 * Memory measurement around one request on an in-process server. The test runner does not pass
 * --expose-gc, so the flag is set at run time and `gc` is taken from a fresh context, where V8 installs it.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function collect(): number {
  // Twice: the first pass may leave objects that only become garbage once finalizers ran.
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export interface MemoryUse<T> {
  result: T;
  /** Heap still held after the request and a full collection (bytes). */
  retained: number;
  /** How far the request pushed the process's peak resident memory above its earlier peak (bytes). */
  peakRise: number;
}

/**
 * Runs `fn` and reports its memory use. The peak is the kernel's high-water mark of resident memory, so a
 * transient spike counts even if collected before `fn` returns; it only shows growth past earlier peaks.
 */
export async function measureMemory<T>(fn: () => Promise<T>): Promise<MemoryUse<T>> {
  const heapBefore = collect();
  const peakBefore = process.resourceUsage().maxRSS;
  const result = await fn();
  const peakAfter = process.resourceUsage().maxRSS;
  const heapAfter = collect();
  return { result, retained: heapAfter - heapBefore, peakRise: (peakAfter - peakBefore) * 1024 };
}

export const MB = 1024 * 1024;
