// The table of prefix states a preemption search reached (src/explore/graph/reached-states.ts):
// every state told apart exactly, by a number when the search's states fit in one and by a
// hash checked against the counts when they do not (many threads), as a plain map of the
// counts would; and a graph with that many threads bounded as hbcache bounds it.
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { ReachedStates } from '../src/explore/graph/reached-states.js';
import { fixture } from './support/harness.js';

/** A small deterministic generator (xorshift32): the same states on every run. */
function generator(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % below;
  };
}

/** Looks up `states` (counts and last thread) at random costs in a fresh table and in a map: the answers must agree. */
function compareWithMap(threads: number, length: number, states: number, lookups: number): { mismatches: number; repeated: number } {
  const random = generator(12345 + threads);
  const lengths = new Int32Array(threads).fill(length);
  const table = new ReachedStates(1 << 24, (size) => new Error(`too many: ${size}`));
  table.clear(lengths, threads);
  const distinct: { counts: Int32Array; last: number }[] = [];
  for (let i = 0; i < states; i++) {
    const counts = new Int32Array(threads);
    for (let thread = 0; thread < threads; thread++) counts[thread] = random(length + 1);
    distinct.push({ counts, last: random(threads) });
  }
  const best = new Map<string, number>();
  let mismatches = 0;
  let repeated = 0;
  for (let i = 0; i < lookups; i++) {
    // every state once, in order, then at random: first visits and visits again, at any cost
    const { counts, last } = distinct[i < states ? i : random(states)]!;
    const cost = random(4);
    let countsKey = 0;
    for (let thread = 0; thread < threads; thread++) countsKey += counts[thread]! * table.termOf(thread);
    const text = `${counts.join(',')};${last}`;
    const seen = best.get(text);
    const expected = seen === undefined || cost < seen;
    if (expected) best.set(text, cost);
    if (seen !== undefined) repeated++;
    if (table.lower(countsKey, counts, last, cost) !== expected) mismatches++;
  }
  return { mismatches, repeated };
}

describe('the preemption search tells every prefix state apart', () => {
  it('few threads: states keyed by one exact number agree with a map of their counts', () => {
    const { mismatches, repeated } = compareWithMap(4, 12, 20_000, 100_000);
    expect(repeated).toBeGreaterThan(70_000);
    expect(mismatches).toBe(0);
  });

  it('24 threads (states past 2^53): hashed states, checked against their counts, agree with a map, colliding hashes too', () => {
    // 300,000 states under 32-bit hashes: about ten pairs share one, which only the counts tell apart
    const { mismatches, repeated } = compareWithMap(24, 9, 300_000, 600_000);
    expect(repeated).toBeGreaterThan(250_000);
    expect(mismatches).toBe(0);
  });

  it('past its limit the table refuses, never guesses', () => {
    const table = new ReachedStates(25 * 100, (size) => new Error(`too many: ${size}`));
    const threads = 24;
    table.clear(new Int32Array(threads).fill(9), threads);
    const counts = new Int32Array(threads);
    expect(() => {
      for (let state = 0; state < 101; state++) {
        counts[0] = state % 10;
        counts[1] = Math.floor(state / 10);
        table.lower(counts[0] * table.termOf(0) + counts[1] * table.termOf(1), counts, 0, 0);
      }
    }).toThrow('too many: 100');
  });

  it('a graph of 24 threads, 3 of them at once: at each bound the classes hbcache counts', async () => {
    const counts = async (strategy: string, maxBound: number) =>
      (await checkAllInterleavings(fixture('graph/many_threads_few_racing.c'), { strategy, maxBound, workers: 1 })).tests[0]!;
    for (const maxBound of [0, 1, 2]) {
      const [graph, hbcache] = [await counts('graph', maxBound), await counts('hbcache', maxBound)];
      expect(graph).toMatchObject({ status: 'pass', executions: hbcache.executions, bound: maxBound });
      expect(graph.fallback).toBeUndefined();
    }
  });
});
