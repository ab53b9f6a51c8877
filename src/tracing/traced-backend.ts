/**
 * A child span for each storage call a traced request makes. Calls outside a traced request (unsampled
 * requests, the watch caches' feeds, controllers) go straight through after one lookup of the current span.
 */
import { InstrumentedBackend, type Backend, type StorageCallHook } from '../storage/index.js';
import { currentSpan, type Span } from './span.js';

/** Opens `storage.<operation>` under the current span, runs the call inside it, and ends it when settled. */
function spanHook(system: string): StorageCallHook<Span> {
  return {
    start(operation, key) {
      return currentSpan()?.child(`storage.${operation}`, 'client', { 'db.system': system, 'db.operation': operation, key });
    },
    run: (span, call) => span.run(call),
    finish(span, _operation, _key, failed, error) {
      if (failed) span.fail(error instanceof Error ? error.message : String(error));
      span.end();
    },
  };
}

export class TracedBackend extends InstrumentedBackend<Span> {
  constructor(inner: Backend) {
    super(inner, spanHook(inner.name));
  }
}
