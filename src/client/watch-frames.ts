/**
 * Watch responses are one JSON event per line. The parser works on chunks as they arrive, so a watch
 * never holds more than one partial line in memory.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { statusErrorFromStatus } from './status-error.js';
import type { KubeObject, WatchEvent } from './types.js';

/** Splits text chunks into complete lines; the tail waits for the next chunk. Pure apart from its buffer. */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private tail = '';

  push(chunk: Buffer): string[] {
    const text = this.tail + this.decoder.write(chunk);
    const lines = text.split('\n');
    this.tail = lines.pop() as string;
    return lines.filter((l) => l.trim() !== '');
  }

  /** What is left when the stream ends (a last event without its newline). */
  end(): string[] {
    const rest = (this.tail + this.decoder.end()).trim();
    this.tail = '';
    return rest ? [rest] : [];
  }
}

/** One line to an event; an ERROR event is thrown as the StatusError it carries. */
export function parseEventLine<T extends KubeObject>(line: string): WatchEvent<T> {
  const e = JSON.parse(line) as { type: string; object: Record<string, unknown> };
  if (e.type === 'ERROR') throw statusErrorFromStatus(e.object as { code?: number; reason?: string; message?: string });
  if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED' && e.type !== 'BOOKMARK') {
    throw new Error(`watch: unknown event type ${JSON.stringify(e.type)}`);
  }
  return e as unknown as WatchEvent<T>;
}

/**
 * The events of one watch response until the server ends it (or the stream is destroyed by an abort);
 * `mapObject` reshapes each event's object (not a bookmark's) without another generator in between.
 */
export async function* watchEvents<T extends KubeObject>(stream: Readable, mapObject?: (obj: T) => T): AsyncGenerator<WatchEvent<T>> {
  const lines = new LineSplitter();
  const event = mapObject ? (line: string) => mapped(parseEventLine<T>(line), mapObject) : parseEventLine<T>;
  try {
    for await (const chunk of stream) for (const line of lines.push(chunk as Buffer)) yield event(line);
    for (const line of lines.end()) yield event(line);
  } finally {
    // The consumer stopped early (break, error): release the HTTP/2 stream.
    if (!stream.destroyed) stream.destroy();
  }
}

function mapped<T extends KubeObject>(e: WatchEvent<T>, mapObject: (obj: T) => T): WatchEvent<T> {
  return e.type === 'BOOKMARK' ? e : { type: e.type, object: mapObject(e.object) };
}
