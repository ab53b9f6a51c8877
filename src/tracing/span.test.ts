import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTraceparent, Tracer, type Span } from './span.js';

const collect = () => {
  const ended: Span[] = [];
  return { ended, sink: { add: (s: Span) => void ended.push(s) } };
};

describe('W3C trace context and sampling', () => {
  const parents: [string, ReturnType<typeof parseTraceparent>][] = [
    ['00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01', { traceId: '4bf92f3577b34da6a3ce929d0e0e4737', spanId: '00f067aa0ba902b7', sampled: true }],
    ['00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-00', { traceId: '4bf92f3577b34da6a3ce929d0e0e4737', spanId: '00f067aa0ba902b7', sampled: false }],
    ['01-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-03-later', { traceId: '4bf92f3577b34da6a3ce929d0e0e4737', spanId: '00f067aa0ba902b7', sampled: true }],
    ['00-00000000000000000000000000000000-00f067aa0ba902b7-01', undefined],
    ['00-4bf92f3577b34da6a3ce929d0e0e4737-0000000000000000-01', undefined],
    ['ff-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01', undefined],
    ['00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01-extra', undefined],
    ['00-4BF92F3577B34DA6A3CE929D0E0E4737-00f067aa0ba902b7-01', undefined],
    ['garbage', undefined],
  ];
  for (const [value, want] of parents) {
    it(`reference behaviour: traceparent ${value}`, () => assert.deepEqual(parseTraceparent(value), want));
  }

  it('reference behaviour: ParentBased — a sampled parent is traced at rate 0, an unsampled one is not even at the full rate', () => {
    const { sink } = collect();
    const none = new Tracer(0, sink);
    const span = none.startServerSpan('x', '00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01', 'k=v');
    assert.equal(span?.context.traceId, '4bf92f3577b34da6a3ce929d0e0e4737');
    assert.equal(span?.parentSpanId, '00f067aa0ba902b7');
    assert.equal(span?.context.traceState, 'k=v');
    assert.equal(none.startServerSpan('x', undefined, undefined), undefined);
    assert.equal(new Tracer(1_000_000, sink).startServerSpan('x', '00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-00', undefined), undefined);
    assert.ok(new Tracer(1_000_000, sink).startServerSpan('x', undefined, undefined));
  });

  it('reference behaviour: TraceIDRatioBased compares the low 63 bits of the trace id with the rate', () => {
    const { sink } = collect();
    const half = new Tracer(500_000, sink);
    assert.equal(half.ratioSampled('ffffffffffffffff' + '7ff0000000000000'), true); // low bits >> 1 below 2^62
    assert.equal(half.ratioSampled('0000000000000000' + '8000000000000000'), false); // exactly 2^62 after the shift
    const tracer = new Tracer(100_000, sink);
    let sampled = 0;
    for (let i = 0; i < 20_000; i++) if (tracer.startServerSpan('x', undefined, undefined)) sampled++;
    assert.ok(sampled > 1600 && sampled < 2400, `about 10% sampled, got ${sampled}`);
  });

  it('spec 2.12: children share the trace, name their parent, and end into the sink once', () => {
    const { ended, sink } = collect();
    const root = new Tracer(1_000_000, sink).startServerSpan('root', undefined, undefined)!;
    const child = root.child('c', 'client', { a: 1 });
    assert.equal(child.context.traceId, root.context.traceId);
    assert.equal(child.parentSpanId, root.context.spanId);
    assert.equal(child.traceparent, `00-${root.context.traceId}-${child.context.spanId}-01`);
    child.end();
    child.end();
    assert.deepEqual(ended, [child]);
  });
});
