// A heap block's address depends only on the thread that allocates it and on that thread's
// own allocations: the explorer names memory locations by address, so two schedules that
// order the threads' mallocs differently must agree on every block's address.
import { describe, expect, it } from 'vitest';

import { type NativeHarness, openHarness } from '../src/addon/addon.js';
import { Outcome } from '../src/addon/ops.js';
import { buildHarness } from '../src/compile/compile.js';
import { checkAllInterleavings } from '../src/index.js';
import { fixture } from './support/harness.js';

const DRF = 0;
const FILE = fixture('heap/thread_heaps.c');

let loaded: NativeHarness | undefined;
const harness = () => (loaded ??= openHarness(buildHarness(FILE).library));

/** Runs test `name` on `decisions` (then the default policy): its output's lines, each `thread first second`. */
function run(name: string, decisions: number[]): string[][] {
  const test = harness().tests().findIndex((t) => t.name === name);
  const schedule = Uint16Array.from(decisions);
  expect(harness().run(test, schedule, schedule.length, 1000, DRF)).toBe(Outcome.OK);
  return harness().output().trim().split('\n').map((line) => line.split(' '));
}

describe('heap addresses by allocating thread', () => {
  // Steps 0 and 1 are main's creates; then T1 or T2 runs first, each to its end.
  it('gives each thread the same blocks whichever thread allocates first', () => {
    const oneFirst = run('blocks_by_thread', [0, 0, 1]);
    const twoFirst = run('blocks_by_thread', [0, 0, 2]);
    const order = (lines: string[][]) => lines.map(([thread]) => thread);
    expect(order(oneFirst)).toEqual(['T1', 'T0', 'T2']);
    expect(order(twoFirst)).toEqual(['T2', 'T0', 'T1']);
    const byThread = (lines: string[][]) => new Map(lines.map(([thread, ...blocks]) => [thread, blocks]));
    expect(byThread(twoFirst)).toEqual(byThread(oneFirst));
    expect(new Set(oneFirst.flatMap(([, ...blocks]) => blocks)).size).toBe(6);
  });

  it("lists every thread's blocks, in address order", () => {
    run('blocks_by_thread', [0, 0, 1]);
    const triples = harness().heapBlocks();
    const blocks = Array.from({ length: triples.length / 3 }, (_, k) => ({ address: triples[3 * k]!, size: triples[3 * k + 1]! }));
    expect(blocks.map((block) => block.size)).toEqual([24, 40, 24, 40, 24, 40]);
    expect(blocks.map((block) => block.address)).toEqual(blocks.map((block) => block.address).sort((a, b) => a - b));
  });

  it("names a worker's block after main's, though the worker allocated it first", async () => {
    const test = (await checkAllInterleavings(FILE, { test: 'race_on_a_workers_block' })).tests[0]!;
    expect(test.bug?.kind === 'race' && test.bug.race.variable).toBe('pair#2.second');
    expect(test.bug?.heapObjects?.map((object) => [object.name, object.allocated?.line])).toEqual([['pair#1', 72], ['pair#2', 61]]);
  });

  it("refuses a worker a block larger than its region, and gives main's larger one", async () => {
    const result = await checkAllInterleavings(FILE, { test: 'region_limits', strategy: 'dfs' });
    expect(result.tests[0]).toMatchObject({ name: 'region_limits', status: 'pass' });
  });
});
