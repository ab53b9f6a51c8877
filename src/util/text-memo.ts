/**
 * Answers remembered per text key (a header value, a request path) in a small table: emptied when full, and
 * keys longer than `maxKeyLength` are not kept. Clients send the same few texts on every request, so a
 * handful of entries saves re-parsing them; the bounds keep a client that sends a new text every time from
 * growing it. Values are shared between callers: store only values nobody changes (freeze them).
 */
export class TextMemo<V> {
  private readonly table = new Map<string, V>();

  constructor(
    private readonly maxEntries = 128,
    private readonly maxKeyLength = 256,
  ) {}

  get(key: string): V | undefined {
    return this.table.get(key);
  }

  /** Remembers `value` for `key` (unless the key is too long) and returns it. */
  set(key: string, value: V): V {
    if (key.length <= this.maxKeyLength) {
      if (this.table.size >= this.maxEntries) this.table.clear();
      this.table.set(key, value);
    }
    return value;
  }

  get size(): number {
    return this.table.size;
  }
}
