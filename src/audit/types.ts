/**
 * The audit seam (spec 2.11, 1.6): the server builds one Event per request stage that its policy level
 * asks for and hands it to a sink; sinks (a log file, a webhook, a buffer in front of either) decide how
 * and when it is written. A sink never throws into the request path and never blocks it in batch mode.
 */

import type { AuditLevel, AuditStage } from '../config/audit-policy.js';

export { AUDIT_LEVELS, AUDIT_STAGES, type AuditLevel, type AuditStage } from '../config/audit-policy.js';

export interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuditObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** An audit Event (`audit.<group suffix>/v1`, spec 2.11), as written to every backend. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: Exclude<AuditLevel, 'None'>;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus?: { metadata?: Record<string, unknown>; status?: string; message?: string; reason?: string; details?: Record<string, unknown>; code?: number };
  requestObject?: unknown;
  responseObject?: unknown;
  /** RFC 3339 with microseconds, as the reference writes them. */
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Where events go. Implementations: the log file, the webhook, a batching buffer in front of either, a union. */
export interface AuditSink {
  /** Takes the events; must not throw. A blocking sink has written them when it returns (or when its promise settles). */
  processEvents(events: readonly AuditEvent[]): void | Promise<void>;
  /** Writes what is buffered (within the sink's own deadline) and releases files and connections. */
  shutdown(): Promise<void>;
}
