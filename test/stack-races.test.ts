import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { absoluteLocation, relativeLocation } from '../src/report/replay.js';
import { borrowHarness, returnHarness } from '../src/addon/harness-pool.js';
import { buildHarness } from '../src/compile/compile.js';
import { fixture, runCli } from './support/harness.js';

const at = (file: string, line: number) => ({ location: { file: `fixtures/stack/${file}`, line } });

describe('data races on memory a thread\'s stack shares', () => {
  it('a struct on main\'s stack written by two threads: the field named in main\'s frame, both writes', async () => {
    const test = (await checkAllInterleavings(fixture('stack/shared_box.c'))).tests[0]!;
    expect(test.status).toBe('fail');
    expect(test.bug).toMatchObject({
      kind: 'race',
      message: 'data race on b.z in main\'s frame: T2 writes at fixtures/stack/shared_box.c:12, unordered with T1\'s write at fixtures/stack/shared_box.c:12',
      race: { variable: 'b.z in main\'s frame', accesses: [{ thread: 1, access: 'write', ...at('shared_box.c', 12) }, { thread: 2, access: 'write', ...at('shared_box.c', 12) }] },
    });
  });

  it('a local whose address main hands to a reader, then writes: the read races with the write', async () => {
    const test = (await checkAllInterleavings(fixture('stack/shared_local.c'))).tests[0]!;
    expect(test.bug).toMatchObject({
      kind: 'race',
      race: { variable: 'v in main\'s frame', accesses: [{ thread: 0, access: 'write', ...at('shared_local.c', 17) }, { thread: 1, access: 'read', ...at('shared_local.c', 9) }] },
    });
  });

  it('names the local when the stack\'s own thread makes the second access, and a worker\'s array element', async () => {
    const owner = (await checkAllInterleavings(fixture('stack/racy_frames.c'), { test: 'owner_writes_second' })).tests[0]!;
    expect(owner.bug).toMatchObject({
      kind: 'race',
      race: { variable: 'v in owner_writes_second\'s frame', accesses: [{ thread: 1, access: 'write', ...at('racy_frames.c', 11) }, { thread: 0, access: 'write', ...at('racy_frames.c', 23) }] },
    });
    const worker = (await checkAllInterleavings(fixture('stack/racy_frames.c'), { test: 'worker_array' })).tests[0]!;
    expect(worker.bug?.kind === 'race' && worker.bug.race.variable).toBe('counts[1] in worker_with_helper\'s frame');
  });

  // at bound 0 main runs on to its join: only the hand-over itself can have made its write checked
  it.each(['by_plain_store', 'by_atomic_store', 'by_struct_copy'])('%s: a stack whose address is stored where a thread reads it is checked from then on', async (test) => {
    const result = (await checkAllInterleavings(fixture('stack/escape_routes.c'), { test, strategy: 'dfs', maxBound: 0 })).tests[0]!;
    expect(result.bug).toMatchObject({ kind: 'race', race: { variable: `v in ${test}'s frame`, accesses: [{ thread: 0, access: 'write' }, { thread: 1, access: 'read' }] } });
  });

  it.each(['drf', 'sc'] as const)('no race and complete where a lock or a join orders the accesses (%s)', async (mode) => {
    const result = await checkAllInterleavings(fixture('stack/ordered.c'), { mode });
    expect(result.tests.map((test) => [test.name, test.status, test.complete, test.bug?.message])).toEqual([
      ['box_locked', 'pass', true, undefined],
      ['local_written_after_join', 'pass', true, undefined],
      ['result_read_after_join', 'pass', true, undefined],
      ['worker_local_locked', 'pass', true, undefined],
    ]);
  });

  it('sc mode: main\'s write to its shared local is a scheduling point, so the reader may see the old value', async () => {
    const test = (await checkAllInterleavings(fixture('stack/racy_frames.c'), { test: 'sc_reader_sees_old_value', mode: 'sc' })).tests[0]!;
    expect(test.bug).toMatchObject({ kind: 'assertion', message: '*v == 1', ...at('racy_frames.c', 53) });
    // the failing read names the local it read, in its frame
    expect(test.bug?.steps.at(-1)).toMatchObject({ thread: 1, target: 'v in sc_reader_sees_old_value\'s frame', value: 0 });
  });

  it('a local on a stack is found again in a process that maps the stacks elsewhere (replay strings, worker processes)', () => {
    const library = buildHarness(fixture('stack/shared_box.c')).library;
    const harness = borrowHarness(library);
    try {
      const here = harness.result();
      expect(here.stacksSize).toBeGreaterThan(0);
      const local = here.stacksBase + 4096 + 12;
      const elsewhere = { ...here, stacksBase: here.stacksBase + 2 ** 30, heapBase: here.heapBase - 2 ** 28 };
      expect(relativeLocation(local, here)).toBe('s4108');
      expect(absoluteLocation(relativeLocation(local, here), elsewhere)).toBe(local + 2 ** 30);
      // globals and the heap as before
      expect(absoluteLocation(relativeLocation(here.libraryBase + 64, here), elsewhere)).toBe(here.libraryBase + 64);
      expect(absoluteLocation(relativeLocation(here.heapBase + 8, here), elsewhere)).toBe(here.heapBase + 8 - 2 ** 28);
    } finally {
      returnHarness(library, harness);
    }
  });

  it('replays a race on a stack exactly, its local named again', () => {
    const check = JSON.parse(runCli(['check', 'fixtures/stack/shared_box.c', '--json']).stdout);
    const { schedule, message } = check.tests[0].bug;
    const replay = JSON.parse(runCli(['replay', 'fixtures/stack/shared_box.c', '--schedule', schedule, '--json']).stdout);
    expect(replay.tests[0].bug).toMatchObject({ kind: 'race', message, schedule });
  });
});
