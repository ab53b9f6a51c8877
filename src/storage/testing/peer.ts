/**
 * A second, independent handle onto the same store, for the cross-handle contract tests: writes made through
 * a peer must appear in the first handle's watches and the other way round.
 */
export interface PeerEvent {
  type: 'PUT' | 'DELETE';
  key: string;
  revision: number;
}

export interface Peer {
  create(key: string, value: string): Promise<number>;
  /** Watches `prefix` after `fromRevision` and resolves with the first `count` events. */
  collect(prefix: string, fromRevision: number, count: number): Promise<PeerEvent[]>;
  close(): Promise<void>;
}
