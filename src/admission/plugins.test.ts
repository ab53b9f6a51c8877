import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ON_PLUGINS, ORDERED_PLUGINS, PLUGIN_FACTORIES, resolvePlugins } from './plugins.js';

test('reference behaviour: the 1.31 plugin order starts with AlwaysAdmit and ends with the webhooks, quota and AlwaysDeny', () => {
  assert.equal(ORDERED_PLUGINS.length, 34);
  assert.deepEqual(ORDERED_PLUGINS.slice(0, 4), ['AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists']);
  assert.deepEqual(ORDERED_PLUGINS.slice(-5), ['MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota', 'AlwaysDeny']);
  assert.equal(new Set(ORDERED_PLUGINS).size, ORDERED_PLUGINS.length);
  for (const n of DEFAULT_ON_PLUGINS) assert.ok(ORDERED_PLUGINS.includes(n), n);
  for (const n of PLUGIN_FACTORIES.keys()) assert.ok(ORDERED_PLUGINS.includes(n), n);
  for (const n of ORDERED_PLUGINS) assert.ok(PLUGIN_FACTORIES.has(n), `${n} has a factory`);
});

test('reference behaviour: --enable/--disable-admission-plugins on top of the default set, always in the fixed order', () => {
  // The defaults in the fixed order.
  const defaults = ORDERED_PLUGINS.filter((n) => DEFAULT_ON_PLUGINS.has(n));
  const without = (...names: string[]) => defaults.filter((n) => !names.includes(n));
  const table: [string[], string[], string[]][] = [
    [[], [], defaults],
    [['AlwaysDeny', 'AlwaysAdmit'], [], ['AlwaysAdmit', ...defaults, 'AlwaysDeny']],
    [[], ['Priority', 'MutatingAdmissionWebhook'], without('Priority', 'MutatingAdmissionWebhook')],
    [['NamespaceLifecycle'], [], defaults],
    [[], ['TaintNodesByCondition'], without('TaintNodesByCondition')],
    [[], ['ResourceQuota'], without('ResourceQuota')],
  ];
  for (const [enable, disable, want] of table) assert.deepEqual(resolvePlugins(enable, disable), want, `${enable} / ${disable}`);
});

test('reference behaviour: unknown names and a name in both flags are start-up errors', () => {
  const table: [string[], string[], RegExp][] = [
    [['NoSuchPlugin'], [], /--enable-admission-plugins: plugin "NoSuchPlugin" is unknown/],
    [[], ['Bogus'], /--disable-admission-plugins: plugin "Bogus" is unknown/],
    [['AlwaysDeny', 'Priority'], ['Priority', 'AlwaysDeny'], /\[AlwaysDeny Priority\] in enable-admission-plugins and disable-admission-plugins overlapped/],
  ];
  for (const [enable, disable, want] of table) assert.throws(() => resolvePlugins(enable, disable), want);
});
