/**
 * Every served type as an object of one shape (the same properties in the same order, absent ones as
 * undefined), and its strategy likewise. The request path reads these properties on every request; with
 * types made by spreading overrides, ~55 different shapes would make those reads megamorphic.
 */
import type { ResourceType, Strategy } from '../types.js';

export function uniformStrategy(s: Strategy): Strategy {
  return {
    nameRule: s.nameRule,
    prepareForCreate: s.prepareForCreate,
    afterCreateAdmission: s.afterCreateAdmission,
    prepareForUpdate: s.prepareForUpdate,
    prepareForStatusUpdate: s.prepareForStatusUpdate,
    prepareForFinalizeUpdate: s.prepareForFinalizeUpdate,
    subresourceWrites: s.subresourceWrites,
    validate: s.validate,
    validateUpdate: s.validateUpdate,
    pendingFinalizers: s.pendingFinalizers,
    prepareForTerminating: s.prepareForTerminating,
    warnings: s.warnings,
    tracksGeneration: s.tracksGeneration,
    allowUnconditionalUpdate: s.allowUnconditionalUpdate,
    allowCreateOnUpdate: s.allowCreateOnUpdate,
  };
}

export function uniformType(t: ResourceType): ResourceType {
  return {
    group: t.group,
    version: t.version,
    kind: t.kind,
    listKind: t.listKind,
    plural: t.plural,
    singular: t.singular,
    shortNames: t.shortNames,
    categories: t.categories,
    namespaced: t.namespaced,
    subresources: t.subresources,
    schema: t.schema,
    strategy: uniformStrategy(t.strategy),
    tableColumns: t.tableColumns,
    selectableFields: t.selectableFields,
    storageKey: t.storageKey,
    toStorage: t.toStorage,
    fromStorage: t.fromStorage,
    verbs: t.verbs,
    scale: t.scale,
    reference: t.reference,
    allocations: t.allocations,
  };
}
