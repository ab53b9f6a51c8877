import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GROUP_SUFFIX } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { secrets } from './index.js';
import { SECRET_TYPES, SERVICE_ACCOUNT_NAME_ANNOTATION } from './types.js';

const s = secrets.strategy;
const b64 = (v: string) => Buffer.from(v).toString('base64');
const secret = (extra: ApiObject = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'creds', namespace: 'default' },
  ...extra,
});
const created = (extra: ApiObject = {}) => {
  const o = secret(extra);
  s.prepareForCreate?.(o);
  return o;
};
const errsOf = (o: ApiObject) => s.validate(o).map((e) => [e.field, e.type]);

describe('secrets', () => {
  it('API reference: identity, no short names, selectable type', () => {
    assert.equal(secrets.kind, 'Secret');
    assert.equal(secrets.listKind, 'SecretList');
    assert.deepEqual(secrets.shortNames, []);
    assert.equal(secrets.namespaced, true);
    assert.equal(secrets.storageKey, 'core/secrets');
    assert.equal(s.nameRule, 'subdomain');
    assert.deepEqual(secrets.selectableFields?.(created()), { type: 'Opaque' });
  });

  it('API reference: type strings carry the group suffix from naming.ts', () => {
    assert.equal(SECRET_TYPES.tls, `${GROUP_SUFFIX}/tls`);
    assert.equal(SERVICE_ACCOUNT_NAME_ANNOTATION, `${GROUP_SUFFIX}/service-account.name`);
  });

  it('API reference: type defaults to Opaque and stringData is folded into data as base64', () => {
    const o = created({ data: { a: b64('old'), b: b64('keep') }, stringData: { a: 'new', c: 'plain' } });
    assert.equal(o.type, 'Opaque');
    assert.equal(o.stringData, undefined);
    assert.deepEqual(o.data, { a: b64('new'), b: b64('keep'), c: b64('plain') });
    assert.deepEqual(s.validate(o), []);
  });

  it('API reference: update folds stringData too', () => {
    const o = secret({ type: 'Opaque', stringData: { x: 'y' } });
    s.prepareForUpdate?.(o, created());
    assert.deepEqual(o.data, { x: b64('y') });
    assert.equal('stringData' in o, false);
  });

  it('API reference: data values must be base64 and keys valid config keys', () => {
    assert.deepEqual(errsOf(created({ data: { ok: b64('v'), bad: 'not*base64' } })), [['data[bad]', 'FieldValueInvalid']]);
    const msg = s.validate(created({ data: { bad: 'secret!!' } }))[0]?.message ?? '';
    assert.ok(!msg.includes('secret!!'), 'the value is never echoed');
    assert.deepEqual(errsOf(created({ data: { 'a/b': b64('v') } })), [['data[a/b]', 'FieldValueInvalid']]);
  });

  it('API reference: total data may be at most 1 MiB', () => {
    assert.deepEqual(s.validate(created({ data: { a: Buffer.alloc(1024 * 1024).toString('base64') } })), []);
    const errs = s.validate(created({ data: { a: Buffer.alloc(1024 * 1024 + 1).toString('base64') } }));
    assert.deepEqual(errs.map((e) => [e.field, e.type]), [['data', 'FieldValueTooLong']]);
    assert.match(errs[0]?.message ?? '', /must have at most 1048576 bytes/);
  });

  it('API reference: service account token secrets need the service-account name annotation', () => {
    const bad = created({ type: SECRET_TYPES.serviceAccountToken });
    assert.deepEqual(errsOf(bad), [[`metadata.annotations[${SERVICE_ACCOUNT_NAME_ANNOTATION}]`, 'FieldValueRequired']]);
    const good = created({ type: SECRET_TYPES.serviceAccountToken });
    good.metadata = { ...good.metadata, annotations: { [SERVICE_ACCOUNT_NAME_ANNOTATION]: 'default' } };
    assert.deepEqual(s.validate(good), []);
  });

  it('API reference: docker config secrets need their key holding JSON', () => {
    assert.deepEqual(errsOf(created({ type: SECRET_TYPES.dockercfg })), [['data[.dockercfg]', 'FieldValueRequired']]);
    assert.deepEqual(s.validate(created({ type: SECRET_TYPES.dockercfg, data: { '.dockercfg': b64('{}') } })), []);
    assert.deepEqual(errsOf(created({ type: SECRET_TYPES.dockerConfigJson })), [['data[.dockerconfigjson]', 'FieldValueRequired']]);
    assert.deepEqual(errsOf(created({ type: SECRET_TYPES.dockerConfigJson, data: { '.dockerconfigjson': b64('{nope') } })), [
      ['data[.dockerconfigjson]', 'FieldValueInvalid'],
    ]);
    assert.deepEqual(s.validate(created({ type: SECRET_TYPES.dockerConfigJson, stringData: { '.dockerconfigjson': '{"auths":{}}' } })), []);
  });

  it('API reference: basic-auth needs username or password', () => {
    assert.deepEqual(errsOf(created({ type: SECRET_TYPES.basicAuth })), [
      ['data[username]', 'FieldValueRequired'],
      ['data[password]', 'FieldValueRequired'],
    ]);
    assert.deepEqual(s.validate(created({ type: SECRET_TYPES.basicAuth, stringData: { password: 'p' } })), []);
    assert.deepEqual(s.validate(created({ type: SECRET_TYPES.basicAuth, stringData: { username: 'u' } })), []);
  });

  it('API reference: ssh-auth needs ssh-privatekey and tls needs tls.crt and tls.key', () => {
    assert.deepEqual(errsOf(created({ type: SECRET_TYPES.sshAuth })), [['data[ssh-privatekey]', 'FieldValueRequired']]);
    assert.deepEqual(s.validate(created({ type: SECRET_TYPES.sshAuth, stringData: { 'ssh-privatekey': 'k' } })), []);
    assert.deepEqual(errsOf(created({ type: SECRET_TYPES.tls, stringData: { 'tls.crt': 'c' } })), [['data[tls.key]', 'FieldValueRequired']]);
    assert.deepEqual(errsOf(created({ type: SECRET_TYPES.tls })), [
      ['data[tls.crt]', 'FieldValueRequired'],
      ['data[tls.key]', 'FieldValueRequired'],
    ]);
    assert.deepEqual(s.validate(created({ type: SECRET_TYPES.tls, stringData: { 'tls.crt': 'c', 'tls.key': 'k' } })), []);
  });

  it('API reference: custom types have no required keys', () => {
    assert.deepEqual(s.validate(created({ type: 'example.com/custom' })), []);
  });

  it('API reference: type is immutable on update', () => {
    const old = created();
    const errs = s.validateUpdate?.(created({ type: SECRET_TYPES.tls }), old) ?? [];
    assert.deepEqual(errs.map((e) => [e.field, e.type, e.message]), [['type', 'FieldValueInvalid', `Invalid value: "${SECRET_TYPES.tls}": field is immutable`]]);
    assert.deepEqual(s.validateUpdate?.(created({ data: { a: b64('x') } }), old), []);
  });

  it('API reference: immutable secrets keep data and the flag', () => {
    const old = created({ data: { a: b64('1') }, immutable: true });
    assert.deepEqual(s.validateUpdate?.(created({ data: { a: b64('1') }, immutable: true }), old), []);
    const errs = s.validateUpdate?.(created({ data: { a: b64('2') } }), old) ?? [];
    assert.deepEqual(errs.map((e) => [e.field, e.type]), [
      ['immutable', 'FieldValueForbidden'],
      ['data', 'FieldValueForbidden'],
    ]);
  });

  it('API reference: table shows Type and Data count', () => {
    const o = created({ stringData: { a: '1', b: '2' } });
    assert.deepEqual(secrets.tableColumns.map((c) => c.name), ['Type', 'Data']);
    assert.equal(secrets.tableColumns[0]?.value(o), 'Opaque');
    assert.equal(secrets.tableColumns[1]?.value(o), 2);
  });
});
