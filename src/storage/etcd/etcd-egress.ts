/**
 * etcd through the egress selector's `etcd` Dialer. grpc-js cannot be handed a connection, so each member
 * gets a loopback forwarder (src/util/local-forwarder.ts) and the channel dials those; for an https
 * member the channel still checks the certificate against the member's real name.
 */
import type { Dialer } from '../../util/dialer.js';
import { startLocalForwarder, type LocalForwarder } from '../../util/local-forwarder.js';
import { EtcdBackend, type EtcdBackendOptions } from './etcd-backend.js';
import { forwardingPlan } from './etcd-forwarding-plan.js';

/** An etcd backend whose connections go through `dialer`; closing the backend closes the forwarders. */
export async function openEtcdThroughDialer(opts: EtcdBackendOptions, dialer: Dialer): Promise<EtcdBackend> {
  const plan = forwardingPlan(opts.endpoints);
  const forwarders: LocalForwarder[] = [];
  try {
    for (const m of plan.members) forwarders.push(await startLocalForwarder(dialer, m.host, m.port));
  } catch (e) {
    await Promise.all(forwarders.map((f) => f.close()));
    throw e;
  }
  const local = plan.members.map((m, i) => `${m.secure ? 'https' : 'http'}://127.0.0.1:${(forwarders[i] as LocalForwarder).port}`);
  return new EtcdBackend({
    ...opts,
    endpoints: local,
    channelOptions: { ...plan.channelOptions, ...opts.channelOptions },
    connection: {
      lastFailure: () => forwarders.map((f) => f.lastFailure()).find((f) => f !== undefined),
      close: async () => void (await Promise.all(forwarders.map((f) => f.close()))),
    },
  });
}
