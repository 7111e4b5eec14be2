/**
 * One shared, frozen copy of each value that comes back equal: the steps of a cohort's cases
 * differ mostly in a few paths and numbers, and a plan of thousands of studies held a copy of
 * every span, window address, description and argument object per case, for the whole run.
 * Shared parts are frozen, so a change meant for one case cannot reach another.
 */
/** A shared value and the number an enclosing value's key names it by. */
interface Shared {
  value: unknown;
  id: number;
}

export class Interner {
  /**
   * Shared strings and values, each with a number. An object's key is made of its members'
   * numbers, not of their whole keys: built from whole keys, every level repeated the text of
   * all the levels under it, and the keys of a deep step grew with its depth.
   */
  private readonly strings = new Map<string, Shared>();
  private readonly values = new Map<string, Shared>();
  private count = 0;
  private unique = 0;
  /** The shared copy of the value `walk` saw last (kept here rather than in a pair per node). */
  private last: unknown;

  /**
   * `sharing` off for a single case: it has nothing to share with, and walking thousands of its
   * steps to build their keys would only cost time.
   */
  constructor(private readonly sharing = true) {}

  /** `value` with its strings, arrays and plain objects replaced by the first equal one seen. */
  value<T>(value: T): T {
    if (!this.sharing) return value;
    this.walk(value);
    return this.last as T;
  }

  /**
   * The key of `value`, equal for equal values; its shared copy goes to `last`. A copy is made
   * only of a value not seen before: in a cohort, most are.
   */
  private walk(value: unknown): string {
    if (typeof value === 'string') {
      const shared = this.string(value);
      this.last = shared.value;
      return `s${shared.id}`;
    }
    this.last = value;
    if (value === undefined) return 'u';
    if (typeof value === 'number') return Object.is(value, -0) ? 'n-0' : `n${value}`;
    if (value === null || typeof value !== 'object') return String(value);
    const proto = Object.getPrototypeOf(value) as unknown;
    // Only plain data is shared: anything with a class of its own may hold state.
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return `#${++this.unique}`;
    let key: string;
    let shared: Shared | undefined;
    if (Array.isArray(value)) {
      const items: unknown[] = new Array(value.length);
      key = '[';
      for (let i = 0; i < value.length; i++) {
        key += `${i === 0 ? '' : ','}${this.walk(value[i])}`;
        items[i] = this.last;
      }
      key += ']';
      shared = this.values.get(key) ?? this.keep(key, items);
    } else {
      const record = value as Record<string, unknown>;
      const names = Object.keys(record);
      const items: unknown[] = new Array(names.length);
      key = '{';
      for (let i = 0; i < names.length; i++) {
        const name = this.string(names[i]!);
        names[i] = name.value as string;
        key += `${i === 0 ? '' : ','}${name.id}:${this.walk(record[names[i]!])}`;
        items[i] = this.last;
      }
      key += '}';
      // fromEntries makes even a `__proto__` member an own property, as it was.
      shared = this.values.get(key) ?? this.keep(key, Object.fromEntries(names.map((name, i) => [name, items[i]])));
    }
    this.last = shared.value;
    return `o${shared.id}`;
  }

  private keep(key: string, copy: object): Shared {
    const shared = { value: Object.freeze(copy), id: ++this.count };
    this.values.set(key, shared);
    return shared;
  }

  private string(text: string): Shared {
    let shared = this.strings.get(text);
    if (shared === undefined) {
      shared = { value: text, id: ++this.count };
      this.strings.set(text, shared);
    }
    return shared;
  }
}
