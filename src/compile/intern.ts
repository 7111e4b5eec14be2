/**
 * One shared, frozen copy of each value that comes back equal: the steps of a cohort's cases
 * differ mostly in a few paths and numbers, and a plan of thousands of studies held a copy of
 * every span, window address, description and argument object per case, for the whole run.
 * Shared parts are frozen, so a change meant for one case cannot reach another.
 */
export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly values = new Map<string, unknown>();
  private unique = 0;

  /**
   * `sharing` off for a single case: it has nothing to share with, and walking thousands of its
   * steps to build their keys would only cost time.
   */
  constructor(private readonly sharing = true) {}

  /** `value` with its strings, arrays and plain objects replaced by the first equal one seen. */
  value<T>(value: T): T {
    return this.sharing ? (this.walk(value).value as T) : value;
  }

  private walk(value: unknown): { value: unknown; key: string } {
    if (typeof value === 'string') {
      const known = this.strings.get(value);
      if (known !== undefined) return { value: known, key: JSON.stringify(known) };
      this.strings.set(value, value);
      return { value, key: JSON.stringify(value) };
    }
    if (value === undefined) return { value, key: 'undefined' };
    if (typeof value === 'number') return { value, key: Object.is(value, -0) ? '-0' : String(value) };
    if (value === null || typeof value !== 'object') return { value, key: JSON.stringify(value) };
    const proto = Object.getPrototypeOf(value) as unknown;
    // Only plain data is shared: anything with a class of its own may hold state.
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null)
      return { value, key: `#${++this.unique}` };
    let key: string;
    let copy: unknown;
    if (Array.isArray(value)) {
      const parts = value.map((v) => this.walk(v));
      key = `[${parts.map((p) => p.key).join(',')}]`;
      copy = parts.map((p) => p.value);
    } else {
      const parts = Object.entries(value).map(([k, v]) => [k, this.walk(v)] as const);
      key = `{${parts.map(([k, p]) => `${JSON.stringify(k)}:${p.key}`).join(',')}}`;
      copy = Object.fromEntries(parts.map(([k, p]) => [k, p.value]));
    }
    const known = this.values.get(key);
    if (known !== undefined) return { value: known, key };
    Object.freeze(copy);
    this.values.set(key, copy);
    return { value: copy, key };
  }
}
