/**
 * Which etcd members a proxied backend forwards to, and the channel options that keep TLS checking the
 * real member name. No gRPC import: the server checks the plan at start-up without loading the driver.
 */
import type { ChannelOptions } from '@grpc/grpc-js';
import { StorageError } from '../errors.js';

export interface ForwardedMember {
  /** Host and port the Dialer is asked for (IPv6 without brackets). */
  host: string;
  port: number;
  secure: boolean;
}

export interface ForwardingPlan {
  members: ForwardedMember[];
  /** For an https member: the name its certificate must carry, although the channel dials loopback. */
  channelOptions: ChannelOptions;
}

/**
 * What to forward for `endpoints`. Several https members are refused: the channel checks every
 * connection against one name, and after forwarding it cannot tell which member a connection reached.
 */
export function forwardingPlan(endpoints: readonly string[]): ForwardingPlan {
  if (endpoints.length === 0) throw new StorageError('Unavailable', 'no etcd endpoints configured');
  const members = endpoints.map((e): ForwardedMember => {
    let u: URL;
    try {
      u = new URL(e.includes('://') ? e : `http://${e}`);
    } catch {
      throw new StorageError('Unavailable', `invalid etcd endpoint ${JSON.stringify(e)}`);
    }
    return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || '2379'), secure: u.protocol === 'https:' };
  });
  const secure = members.filter((m) => m.secure);
  if (secure.length === 0) return { members, channelOptions: {} };
  if (members.length > 1) {
    throw new StorageError('Unavailable', `etcd through an egress proxy: ${members.length} endpoints include https ones; with TLS only a single endpoint can be proxied`);
  }
  const only = members[0] as ForwardedMember;
  const authority = `${only.host.includes(':') ? `[${only.host}]` : only.host}:${only.port}`;
  return { members, channelOptions: { 'grpc.ssl_target_name_override': only.host, 'grpc.default_authority': authority } };
}
