/**
 * Collects every problem of a configuration document, each as `<field path>: <kind>: <detail>` in the
 * reference's wording (`Required value`, `Invalid value: "x": ...`, `Duplicate value`, `Too many`), so
 * one start-up error lists them all.
 */
export class FieldErrors {
  readonly list: string[] = [];

  required(path: string, detail = ''): void {
    this.list.push(`${path}: Required value${detail ? `: ${detail}` : ''}`);
  }

  invalid(path: string, value: unknown, detail: string): void {
    this.list.push(`${path}: Invalid value: ${show(value)}: ${detail}`);
  }

  duplicate(path: string, value: unknown): void {
    this.list.push(`${path}: Duplicate value: ${show(value)}`);
  }

  tooMany(path: string, actual: number, max: number): void {
    this.list.push(`${path}: Too many: ${actual}: must have at most ${max} items`);
  }

  forbidden(path: string, detail: string): void {
    this.list.push(`${path}: Forbidden: ${detail}`);
  }

  /** Strict decoding, as the reference reads this document: a misspelt field must not be ignored. */
  unknownFields(path: string, obj: Record<string, unknown>, known: readonly string[]): void {
    for (const k of Object.keys(obj)) if (!known.includes(k)) this.list.push(`${path ? `${path}.` : ''}${k}: unknown field`);
  }

  /** A field of the wrong JSON type. */
  type(path: string, expected: string): void {
    this.list.push(`${path}: must be ${expected}`);
  }
}

const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : v === undefined ? '""' : JSON.stringify(v) ?? String(v));
