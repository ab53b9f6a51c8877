import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ON_PLUGINS, DEFAULTS_NOT_IMPLEMENTED, ORDERED_PLUGINS, PLUGIN_FACTORIES, resolvePlugins } from './plugins.js';

test('reference behaviour: the 1.31 plugin order starts with AlwaysAdmit and ends with the webhooks, quota and AlwaysDeny', () => {
  assert.equal(ORDERED_PLUGINS.length, 34);
  assert.deepEqual(ORDERED_PLUGINS.slice(0, 4), ['AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists']);
  assert.deepEqual(ORDERED_PLUGINS.slice(-5), ['MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota', 'AlwaysDeny']);
  assert.equal(new Set(ORDERED_PLUGINS).size, ORDERED_PLUGINS.length);
  for (const n of DEFAULT_ON_PLUGINS) assert.ok(ORDERED_PLUGINS.includes(n), n);
  for (const n of PLUGIN_FACTORIES.keys()) assert.ok(ORDERED_PLUGINS.includes(n), n);
});

test('reference behaviour: --enable/--disable-admission-plugins on top of the default set, always in the fixed order', () => {
  // The implemented defaults in the fixed order (the list grows as plugins are added).
  const defaults = ORDERED_PLUGINS.filter((n) => DEFAULT_ON_PLUGINS.has(n) && PLUGIN_FACTORIES.has(n));
  const without = (...names: string[]) => defaults.filter((n) => !names.includes(n));
  const table: [string[], string[], string[]][] = [
    [[], [], defaults],
    [['AlwaysDeny', 'AlwaysAdmit'], [], ['AlwaysAdmit', ...defaults, 'AlwaysDeny']],
    [[], ['Priority', 'MutatingAdmissionWebhook'], without('Priority', 'MutatingAdmissionWebhook')],
    [['NamespaceLifecycle'], [], defaults],
    [[], ['TaintNodesByCondition'], without('TaintNodesByCondition')],
    // A default orch does not implement (while there are any) may be disabled without complaint.
    ...DEFAULTS_NOT_IMPLEMENTED.map((n): [string[], string[], string[]] => [[], [n], defaults]),
    [[], ['ResourceQuota'], without('ResourceQuota')],
  ];
  for (const [enable, disable, want] of table) assert.deepEqual(resolvePlugins(enable, disable), want, `${enable} / ${disable}`);
});

test('reference behaviour: unknown names, a name in both flags, and unimplemented plugins asked for are start-up errors', () => {
  const table: [string[], string[], RegExp][] = [
    [['NoSuchPlugin'], [], /--enable-admission-plugins: plugin "NoSuchPlugin" is unknown/],
    [[], ['Bogus'], /--disable-admission-plugins: plugin "Bogus" is unknown/],
    [['AlwaysDeny', 'Priority'], ['Priority', 'AlwaysDeny'], /\[AlwaysDeny Priority\] in enable-admission-plugins and disable-admission-plugins overlapped/],
    // Every plugin orch does not implement (none, once all are).
    ...ORDERED_PLUGINS.filter((n) => !PLUGIN_FACTORIES.has(n)).map((n): [string[], string[], RegExp] => [[n], [], new RegExp(`--enable-admission-plugins: plugin "${n}" is not implemented by this server yet`)]),
  ];
  for (const [enable, disable, want] of table) assert.throws(() => resolvePlugins(enable, disable), want);
});

test('reference behaviour: the defaults orch lacks are exactly the default set minus what it implements', () => {
  assert.deepEqual(
    [...DEFAULTS_NOT_IMPLEMENTED].sort(),
    [...DEFAULT_ON_PLUGINS].filter((n) => !PLUGIN_FACTORIES.has(n)).sort(),
  );
  assert.ok(!DEFAULTS_NOT_IMPLEMENTED.includes('ServiceAccount'));
  assert.ok(!DEFAULTS_NOT_IMPLEMENTED.includes('NamespaceLifecycle'));
});
