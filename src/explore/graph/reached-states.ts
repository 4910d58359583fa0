// The prefix states a preemption search (preemptions.ts) has reached, each with the fewest
// preemptions it was reached with. A state is how many events each thread has run and which
// thread ran last, told apart exactly (a collision could hide an order): by a number when the
// states of the search fit below 2^53 (counts in mixed radix), else by a hash checked against
// the counts, kept in a pool. An open-addressing table emptied in constant time (a
// generation per search); the search adds a term per event run (termOf) to its key, so a
// state costs no more than a lookup.
import { MAX_THREADS } from '../../addon/ops.js';
import { grown, hashOfKey, roomFor } from '../typed-arrays.js';

/** Per thread, what one more event of it adds to a hashed state's key (odd, well mixed), and what it adds as the thread that ran last. */
const hashTerm = new Float64Array(MAX_THREADS);
const lastHashTerm = new Int32Array(MAX_THREADS);
for (let thread = 0; thread < MAX_THREADS; thread++) {
  hashTerm[thread] = (mixed(2 * thread + 1) | 1) >>> 0;
  lastHashTerm[thread] = mixed(2 * thread + 2);
}

export class ReachedStates {
  private keys = new Float64Array(1 << 12);
  private costs = new Uint8Array(1 << 12);
  private generations = new Uint32Array(1 << 12);
  /** hashed states: per slot, where its counts start in `pool` */
  private starts = new Int32Array(1 << 12);
  private generation = 1;
  private size = 0;
  /** the mixed radix of exact keys (a thread's term: the product of the lengths + 1 of the threads before it) */
  private readonly radix = new Float64Array(MAX_THREADS);
  private exact = true;
  private threads = 0;
  /** hashed states' counts, threads + 1 entries each: a count per thread, then the last thread */
  private pool = new Int32Array(1 << 12);

  /** `limit`: the entries the table may hold (states, times threads + 1 when hashed); `tooMany(states)`: the error past it */
  constructor(private readonly limit: number, private readonly tooMany: (states: number) => Error) {}

  /** Empties the table for a search whose threads run `lengths` events each. */
  clear(lengths: Int32Array, threads: number): void {
    this.size = 0;
    this.threads = threads;
    let product = 1;
    for (let thread = 0; thread < threads; thread++) {
      this.radix[thread] = product;
      product *= lengths[thread]! + 1;
    }
    this.exact = product * threads < Number.MAX_SAFE_INTEGER;
    if (++this.generation === 0xffffffff) {
      this.generations.fill(0);
      this.generation = 1;
    }
  }

  /** What running one more event of `thread` adds to a state's counts key (the empty state's is 0). */
  termOf(thread: number): number {
    return this.exact ? this.radix[thread]! : hashTerm[thread]!;
  }

  /**
   * Records `cost` for the state of `counts` (its first `threads` entries, whose key is
   * `countsKey`) with `last` run last, unless it was reached at no greater cost (then false).
   */
  lower(countsKey: number, counts: Int32Array, last: number, cost: number): boolean {
    const exact = this.exact;
    const key = exact ? countsKey * this.threads + last : mixed(countsKey + lastHashTerm[last]!);
    const mask = this.keys.length - 1;
    let slot = hashOfKey(key) & mask;
    for (; this.generations[slot] === this.generation; slot = (slot + 1) & mask) {
      if (this.keys[slot] !== key || (!exact && !this.holds(this.starts[slot]!, counts, last))) continue;
      if (this.costs[slot]! <= cost) return false;
      this.costs[slot] = cost;
      return true;
    }
    const entries = exact ? 1 : this.threads + 1;
    if ((this.size + 1) * entries > this.limit) throw this.tooMany(this.size);
    this.generations[slot] = this.generation;
    this.keys[slot] = key;
    this.costs[slot] = cost;
    if (!exact) this.starts[slot] = this.append(counts, last);
    if (++this.size * 2 > this.keys.length) this.grow();
    return true;
  }

  private holds(start: number, counts: Int32Array, last: number): boolean {
    const threads = this.threads;
    const pool = this.pool;
    if (pool[start + threads] !== last) return false;
    for (let thread = 0; thread < threads; thread++) if (pool[start + thread] !== counts[thread]) return false;
    return true;
  }

  /** Copies a new hashed state's counts into the pool; returns where they start. */
  private append(counts: Int32Array, last: number): number {
    const threads = this.threads;
    const start = this.size * (threads + 1);
    if (start + threads + 1 > this.pool.length) this.pool = grown(this.pool, roomFor(this.pool.length, start + threads + 1));
    const pool = this.pool;
    for (let thread = 0; thread < threads; thread++) pool[start + thread] = counts[thread]!;
    pool[start + threads] = last;
    return start;
  }

  private grow(): void {
    const { keys, costs, generations, starts, generation } = this;
    const size = keys.length * 2;
    this.keys = new Float64Array(size);
    this.costs = new Uint8Array(size);
    this.generations = new Uint32Array(size);
    this.starts = new Int32Array(size);
    this.generation = 1;
    const mask = size - 1;
    for (let old = 0; old < keys.length; old++) {
      if (generations[old] !== generation) continue;
      let slot = hashOfKey(keys[old]!) & mask;
      while (this.generations[slot] === 1) slot = (slot + 1) & mask;
      this.generations[slot] = 1;
      this.keys[slot] = keys[old]!;
      this.costs[slot] = costs[old]!;
      this.starts[slot] = starts[old]!;
    }
  }
}

/** A 32-bit finaliser (murmur3's): nearby sums land far apart. */
function mixed(value: number): number {
  let hash = value | 0;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}
