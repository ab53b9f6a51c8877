/**
 * What the filter chain records per request (spec 3.4): authentication attempts, requests in progress,
 * open long-running requests, and each resource request's count and latency when it ends. Everything is
 * kept in series found by label values (no label strings are built per request).
 */
import type { UserInfo } from '../authn/index.js';
import { isStatusError } from '../errors/index.js';
import { requestLabels, type ApiserverMetrics, type RequestLabels } from '../metrics/index.js';
import type { GaugeSeries } from '../metrics/metric.js';
import { isLongRunning } from './audit-stage.js';
import type { Req, Res } from './http.js';
import type { RequestInfo, RequestUrl } from './request-info.js';

type Kind = 'readOnly' | 'mutating';

/** A request being recorded, from authentication to its end. */
export interface TrackedRequest {
  started: number;
  labels: RequestLabels | undefined;
  kind: Kind | undefined;
  longRunning: GaugeSeries | undefined;
}

export class RequestMetrics {
  private readonly executing = { readOnly: 0, mutating: 0 };
  /** The most requests seen in progress since the last scrape (the reference reports a watermark too). */
  private readonly peak = { readOnly: 0, mutating: 0 };

  constructor(readonly metrics: ApiserverMetrics) {
    metrics.setSources({
      inflight: () => {
        const seen = { ...this.peak };
        this.peak.readOnly = this.executing.readOnly;
        this.peak.mutating = this.executing.mutating;
        return seen;
      },
    });
  }

  /** Authentication failed: a rejected credential (a Status) or an authenticator error. */
  rejected(started: number, e: unknown): void {
    const result = isStatusError(e) && e.code === 401 ? 'failure' : 'error';
    this.metrics.authentication(result, (performance.now() - started) / 1000);
  }

  /** Authentication succeeded: from here on the request is counted. */
  begin(started: number, user: UserInfo, info: RequestInfo, url: RequestUrl, req: Req): TrackedRequest {
    this.metrics.authentication('success', (performance.now() - started) / 1000, user.username);
    const labels = info.isResourceRequest ? requestLabels(info, url.searchParams, req.headers['content-type'] as string | undefined) : undefined;
    if (isLongRunning(info)) {
      const longRunning = labels && this.metrics.longRunningSeries(labels);
      longRunning?.inc();
      return { started, labels, kind: undefined, longRunning };
    }
    const kind: Kind = req.method === 'GET' || req.method === 'HEAD' ? 'readOnly' : 'mutating';
    const now = ++this.executing[kind];
    if (now > this.peak[kind]) this.peak[kind] = now;
    return { started, labels, kind, longRunning: undefined };
  }

  end(t: TrackedRequest, res: Res): void {
    if (t.kind) this.executing[t.kind]--;
    t.longRunning?.dec();
    if (t.labels) this.metrics.request(t.labels, res.statusCode, (performance.now() - t.started) / 1000);
  }
}
