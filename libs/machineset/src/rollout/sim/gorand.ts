// Port of Go's math/rand v1 generator: the additive lagged-Fibonacci source (607 words, tap 273) seeded via
// seedrand, plus Int63/Int31/Int31n/Intn with v1 semantics. Needed to replay upstream's "random(0)" task orders.
import { RNG_COOKED } from './gorand-cooked';

const LEN = 607;
const TAP = 273;
const INT32_MAX = 2147483647; // 2^31 - 1, also the seedrand modulus
const A = 48271;
const Q = 44488;
const R = 3399;

/** x[n+1] = 48271 * x[n] mod (2^31 - 1), computed with Schrage's method exactly like Go (int32 arithmetic). */
export function seedrand(x: number): number {
  const hi = Math.trunc(x / Q);
  const lo = x % Q;
  let next = A * lo - R * hi;
  if (next < 0) next += INT32_MAX;
  return next;
}

const MASK64 = (1n << 64n) - 1n;

export class GoRand {
  // Each 64-bit word is kept as two unsigned 32-bit halves so the hot path avoids BigInt.
  private readonly hi = new Uint32Array(LEN);
  private readonly lo = new Uint32Array(LEN);
  private tap = 0;
  private feed = LEN - TAP;

  constructor(seed: number | bigint) {
    this.seed(seed);
  }

  seed(seed: number | bigint): void {
    this.tap = 0;
    this.feed = LEN - TAP;
    let s = BigInt(seed) % BigInt(INT32_MAX);
    if (s < 0n) s += BigInt(INT32_MAX);
    if (s === 0n) s = 89482311n;
    let x = Number(s);
    for (let i = -20; i < LEN; i++) {
      x = seedrand(x);
      if (i >= 0) {
        let u = BigInt(x) << 40n;
        x = seedrand(x);
        u ^= BigInt(x) << 20n;
        x = seedrand(x);
        u ^= BigInt(x);
        u = (u ^ RNG_COOKED[i]) & MASK64;
        this.hi[i] = Number(u >> 32n);
        this.lo[i] = Number(u & 0xffffffffn);
      }
    }
  }

  /** Advances the generator; the new 64-bit word is left at index `feed`. */
  private step(): number {
    if (--this.tap < 0) this.tap += LEN;
    if (--this.feed < 0) this.feed += LEN;
    const f = this.feed;
    const t = this.tap;
    const lo = this.lo[f] + this.lo[t];
    const carry = lo > 0xffffffff ? 1 : 0;
    this.lo[f] = lo >>> 0;
    this.hi[f] = (this.hi[f] + this.hi[t] + carry) >>> 0;
    return f;
  }

  uint64(): bigint {
    const f = this.step();
    return (BigInt(this.hi[f]) << 32n) | BigInt(this.lo[f]);
  }

  /** Non-negative 63-bit value, as a BigInt (it does not fit a JS number exactly). */
  int63(): bigint {
    return this.uint64() & ((1n << 63n) - 1n);
  }

  /** Int63() >> 32. */
  int31(): number {
    const f = this.step();
    return this.hi[f] & 0x7fffffff;
  }

  /** Uniform in [0, n) with Go v1 rejection sampling. */
  int31n(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > INT32_MAX) throw new RangeError(`invalid argument to Int31n: ${n}`);
    if ((n & (n - 1)) === 0) return this.int31() & (n - 1);
    const max = INT32_MAX - (2147483648 % n);
    let v = this.int31();
    while (v > max) v = this.int31();
    return v % n;
  }

  /** Go v1 Intn for n < 2^31 (the only range the simulation needs). */
  intn(n: number): number {
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`invalid argument to Intn: ${n}`);
    if (n > INT32_MAX) throw new RangeError(`Intn(${n}) beyond 2^31-1 is not supported by this port`);
    return this.int31n(n);
  }
}
