/**
 * The two line formats of the log backend (`--audit-log-format`): `json`, one Event object a line (the
 * default), and `legacy`, the reference's older one-line text summary.
 */
import type { AuditEvent } from './types.js';

export type AuditLogFormat = 'json' | 'legacy';
export const AUDIT_LOG_FORMATS: readonly AuditLogFormat[] = ['json', 'legacy'];

export function formatLine(ev: AuditEvent, format: AuditLogFormat): string {
  return format === 'json' ? `${JSON.stringify(ev)}\n` : `${legacyLine(ev)}\n`;
}

/**
 * `<received> AUDIT: id="..." stage="..." ip="..." method="..." user="..." groups="..." as="..."
 * asgroups="..." user-agent="..." namespace="..." uri="..." response="..."`, with the reference's
 * placeholders for what is missing.
 */
export function legacyLine(ev: AuditEvent): string {
  let username = '<none>';
  let groups = '<none>';
  if (ev.user.username) {
    username = ev.user.username;
    if (ev.user.groups && ev.user.groups.length > 0) groups = quotedList(ev.user.groups);
  }
  let as = '<self>';
  let asGroups = '<lookup>';
  if (ev.impersonatedUser) {
    as = ev.impersonatedUser.username;
    if (ev.impersonatedUser.groups) asGroups = quotedList(ev.impersonatedUser.groups);
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus?.code !== undefined ? String(ev.responseStatus.code) : '<deferred>';
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  const fields: [string, string][] = [
    ['id', ev.auditID],
    ['stage', ev.stage],
    ['ip', ip],
    ['method', ev.verb],
    ['user', username],
    ['groups', groups],
    ['as', as],
    ['asgroups', asGroups],
    ['user-agent', ev.userAgent ?? ''],
    ['namespace', namespace],
    ['uri', ev.requestURI],
  ];
  // The response code is the one field the reference writes without escaping.
  return `${nanoTime(ev.requestReceivedTimestamp)} AUDIT: ${fields.map(([k, v]) => `${k}=${goQuote(v)}`).join(' ')} response="${response}"`;
}

const quotedList = (list: readonly string[]) => list.map(goQuote).join(',');

/** RFC 3339 with the fraction's trailing zeros dropped (Go's RFC3339Nano layout). */
export function nanoTime(micro: string): string {
  return micro.replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

const SHORT_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };

/** A double-quoted string with Go's escapes (`%q`): control characters as \xHH, printable text as it is. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const short = SHORT_ESCAPES[ch];
    if (short) out += short;
    else {
      const c = ch.codePointAt(0) as number;
      if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
      else if (c >= 0x80 && c < 0xa0) out += `\\u${c.toString(16).padStart(4, '0')}`;
      else out += ch;
    }
  }
  return `${out}"`;
}
