/**
 * Short builders so that descriptor files read like the reference's generated.proto: one line per field,
 * `f.str(3)` for `optional string x = 3`. `K` marks a field whose zero value the reference's JSON keeps
 * (a pointer, or a field without omitempty), so that decoding keeps it too.
 */
import type { FieldDescriptor, ScalarType } from '../wire.js';

type Opts = Pick<FieldDescriptor, 'keep' | 'repeated'>;

export const K: Opts = { keep: true };
export const R: Opts = { repeated: true };

const scalar =
  (type: ScalarType) =>
  (no: number, o: Opts = {}): FieldDescriptor => ({ no, type, ...o });

export const f = {
  str: scalar('string'),
  strs: (no: number): FieldDescriptor => ({ no, type: 'string', repeated: true }),
  i32: scalar('int32'),
  i64: scalar('int64'),
  bool: scalar('bool'),
  time: scalar('time'),
  micro: scalar('microtime'),
  ios: scalar('intorstring'),
  qty: scalar('quantity'),
  raw: scalar('rawextension'),
  msg: (no: number, message: string, o: Opts = {}): FieldDescriptor => ({ no, type: 'message', message, ...o }),
  msgs: (no: number, message: string): FieldDescriptor => ({ no, type: 'message', message, repeated: true }),
  /** An embedded Go struct: its fields are inline in JSON but nested on the wire. */
  inline: (no: number, message: string): FieldDescriptor => ({ no, type: 'message', message, inline: true }),
  map: (no: number, value: ScalarType = 'string', message?: string): FieldDescriptor => ({
    no,
    type: 'map',
    mapValue: message ? { type: value, message } : { type: value },
  }),
};

/** `<Kind>List`: ListMeta metadata (1) and repeated items (2), the shape every reference list has. */
export const listOf = (item: string) => ({ metadata: f.msg(1, 'ListMeta'), items: f.msgs(2, item) });
