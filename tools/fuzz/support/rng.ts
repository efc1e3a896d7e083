// Seeded pseudo-random generator (mulberry32) so every fuzz case can be replayed from its seed.

export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bool(pTrue = 0.5): boolean {
    return this.next() < pTrue;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)];
  }

  /** Random string of `length` characters from `alphabet` (default: printable ASCII plus a few multi-byte ones). */
  string(length: number, alphabet = ALPHABET): string {
    let s = '';
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }

  /** Random JSON value with nesting up to `depth`. */
  json(depth = 3): unknown {
    const kind = depth <= 0 ? this.int(0, 4) : this.int(0, 6);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.bool();
      case 2:
        return this.pick([0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, this.int(-1000, 1000)]);
      case 3:
        return this.string(this.int(0, 12));
      case 4:
        return this.pick(['', 'true', '0', '{', 'null', '\u0000', '../..', 'a'.repeat(300)]);
      case 5:
        return Array.from({ length: this.int(0, 4) }, () => this.json(depth - 1));
      default: {
        const o: Record<string, unknown> = {};
        for (let i = this.int(0, 4); i > 0; i--) o[this.pick(KEYS)] = this.json(depth - 1);
        return o;
      }
    }
  }
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._/ :{}[]",\\\'\n\té日🙂';
/** Keys that mean something to the server, mixed with noise, so random objects hit real code paths. */
const KEYS = [
  'apiVersion',
  'kind',
  'metadata',
  'name',
  'namespace',
  'labels',
  'annotations',
  'spec',
  'status',
  'data',
  'items',
  'finalizers',
  'ownerReferences',
  'resourceVersion',
  'uid',
  'generateName',
  'managedFields',
  'x',
  '',
  '$patch',
  'op',
  'path',
  'value',
];
