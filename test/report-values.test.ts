// Counterexamples a C programmer reads at a glance: values by the accessed object's type,
// names down to struct fields, array elements and heap blocks, code from an #included
// .c file under its own name, tables that fit the terminal, racing accesses as rows.
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings, renderBug } from '../src/index.js';
import type { Bug, BugStep } from '../src/report/bug.js';
import { toJson } from '../src/report/json.js';
import { nameOf } from '../src/report/dwarf.js';
import { fixture, runCli } from './support/harness.js';

const shown = (steps: BugStep[]) => steps.filter((step) => step.valueText !== undefined).map((step) => `${step.op} ${step.target} = ${step.valueText}`);

describe('values by type, names by field', () => {
  it('shows each value as its C type says, exactly, and names struct fields of array elements', async () => {
    const result = await checkAllInterleavings(fixture('report/values.c'), { mode: 'sc' });
    const bug = result.tests[0]!.bug!;
    expect(shown(bug.steps)).toEqual([
      'write small = -5',
      'write medium = -300',
      'write plain = -1',
      'write positive = 4000000000',
      'write real = -2.5',
      'write single = 0.5',
      'write wide = 9223372036854775809',
      'write pointer = &plain',
      'write flag = true',
      'write colour = GREEN',
      'write bank.acct[3].balance = -7',
      'read colour = GREEN',
    ]);
    expect(bug.steps.filter((step) => step.op === 'lock' || step.op === 'unlock').map((step) => step.target))
      .toEqual(['bank.acct[3].lock', 'bank.acct[3].lock']);
    // JSON: numbers where exact, decimal strings beyond 2^53
    const json = JSON.parse(JSON.stringify(toJson(result))) as { tests: [{ bug: { steps: BugStep[] } }] };
    const byTarget = new Map(json.tests[0].bug.steps.map((step) => [step.target, step]));
    expect(byTarget.get('wide')).toMatchObject({ value: '9223372036854775809', size: 8 });
    expect(byTarget.get('small')).toMatchObject({ value: -5, valueText: '-5', size: 1 });
    expect(byTarget.get('real')).toMatchObject({ value: -2.5 });
  });

  it('names a condition variable by its struct field in the deadlock explanation and the trace', async () => {
    const bug = (await checkAllInterleavings(fixture('report/ring.c'))).tests[0]!.bug!;
    expect(bug.kind).toBe('deadlock');
    expect(bug.message).toContain('T0 waits for a signal on ring.not_empty (fixtures/report/ring.c:33)');
    expect(bug.steps.map((step) => step.target)).toContain('ring.lock');
  });

  it('names a heap cell by its block, numbered in allocation order, and by field once a typed pointer to the block was seen', async () => {
    const bug = (await checkAllInterleavings(fixture('report/heap_fields.c'))).tests[0]!.bug!;
    expect(bug.kind === 'race' && bug.race.variable).toBe('node#1.next');
    expect(bug.accesses?.filter((access) => access.thread === bug.thread).map((access) => `${access.access} ${access.target} = ${access.valueText}`))
      .toEqual(['read head = &node#1']);
    expect(bug.heapObjects).toEqual([{ name: 'node#1', size: 16, allocated: { file: 'fixtures/report/heap_fields.c', line: 21 } }]);
    // reached through a void pointer only: "block" and the offset
    const untyped = (await checkAllInterleavings(fixture('report/heap_untyped.c'))).tests[0]!.bug!;
    expect(untyped.kind === 'race' && untyped.race.variable).toBe('block#1+4');
  });

  it('shows the values the failing thread read and wrote under a lock near a drf failure', async () => {
    const bug = (await checkAllInterleavings(fixture('core/heap_race.c'))).tests[0]!.bug!;
    const failing = bug.accesses?.filter((access) => access.thread === bug.thread && access.target.endsWith('.balance'));
    expect(failing?.map((access) => [access.access, access.valueText, access.afterStep])).toEqual([['read', '10', 4], ['write', '20', 4]]);
    const text = renderBug(bug, { color: false, width: 100 });
    expect(text).toMatch(/^\s+4\s+lock account#1\.lock\n\s+read account = &account#1[^\n]*\n\s+read account#1\.balance = 10\n\s+write account#1\.balance = 20$/m);
  });

  it('shows code from an #included .c file with that file\'s own name, line and text', async () => {
    const bug = (await checkAllInterleavings(fixture('report/refobj.test.c'), { mode: 'sc' })).tests[0]!.bug!;
    const decrement = bug.steps.find((step) => step.op === 'read');
    expect(decrement).toMatchObject({ target: 'shared.refs', location: { file: 'fixtures/report/refobj.c', line: 9 }, source: 'object->refs--;' });
  });
});

describe("names from readelf's debug info", () => {
  it('reads a name behind every form of string reference, offset 0 (written without 0x) included', () => {
    expect(nameOf('(indirect string, offset: 0): shared')).toBe('shared');
    expect(nameOf('(indirect string, offset: 0x5d): counter')).toBe('counter');
    expect(nameOf('(indirect line string, offset: 0x1a): harness.c')).toBe('harness.c');
    expect(nameOf('(offset: 0x2f): lock')).toBe('lock');
    expect(nameOf('slot')).toBe('slot');
  });
});

describe('the shape of the trace', () => {
  const tableRows = (text: string) => text.split('\n').filter((line) => /^\s*»?\s*\d+ {2}/.test(line));

  it('shows only the threads that take part, folds nothing it needs, and fits the width', async () => {
    const bug = (await checkAllInterleavings(fixture('report/bystanders.c'), { mode: 'sc' })).tests[0]!.bug!;
    for (const width of [80, 100, 140]) {
      const text = renderBug(bug, { color: false, width });
      expect(text).toMatch(/^\s+step {2}T0\s+T5\s+source$/m);
      expect(text).toContain('not shown: T1, T2, T3, T4');
      for (const row of tableRows(text)) expect(row.length).toBeLessThanOrEqual(width);
      // a value is never cut
      expect(text).toContain('write shared_count = 1');
    }
    // the JSON keeps every step of every thread
    expect(new Set(bug.steps.map((step) => step.thread))).toEqual(new Set([0, 1, 2, 3, 4, 5]));
    expect(bug.threadsTakingPart).toEqual([0, 5]);
    // drf mode: the access log links the threads through the variables they touched
    const drf = (await checkAllInterleavings(fixture('report/bystanders.c'))).tests[0]!.bug!;
    expect([drf.threadsTakingPart, drf.consequence?.threadsTakingPart]).toEqual([[0, 5], [0, 5]]);
  });

  it('gives many threads that all take part one column, each row naming its thread', async () => {
    const bug = (await checkAllInterleavings(fixture('report/many_threads.c'), { maxBound: 0 })).tests[0]!.bug!;
    const text = renderBug(bug, { color: false, width: 90 });
    expect(text).toMatch(/^\s+step {2}thread\s+source$/m);
    expect(text).toMatch(/^\s+\d+ {2}T12: lock lock\b/m);
    for (const row of tableRows(text)) expect(row.length).toBeLessThanOrEqual(90);
  });

  it('folds a long run of one thread and prints a source line once for consecutive steps', async () => {
    const bug = (await checkAllInterleavings(fixture('report/values.c'), { mode: 'sc' })).tests[0]!.bug!;
    const text = renderBug(bug, { color: false, width: 120 });
    // the write the failing check reads is never folded away
    expect(text).toContain('⋮ 8 more rows of T1 (lines 33–40)');
    expect(text).toMatch(/^\s+11\s+write colour = GREEN/m);
    expect(text).toContain('write bank.acct[3].balance = -7');
    const creates = renderBug((await checkAllInterleavings(fixture('report/bystanders.c'), { mode: 'sc' })).tests[0]!.bug!, { color: false });
    expect(creates).toMatch(/^\s+1 {2}create T2$/m); // same line as "create T1" above: no repeat
  });

  it('in drf mode shows both racing accesses as rows, where they ran', async () => {
    const run = runCli(['check', fixture('lost_update.c'), '--json']);
    expect(run.status).toBe(1);
    const bug = (JSON.parse(run.stdout) as { tests: [{ bug: Bug }] }).tests[0].bug;
    expect(bug.kind === 'race' && bug.race.accesses.map((access) => [access.thread, access.access, access.afterStep]))
      .toEqual([[0, 'write', 0], [1, 'read', 1]]);
    const text = runCli(['check', fixture('lost_update.c')]).stdout;
    const rows = text.split('\n');
    // the earlier access is in the replay's log, with its value; the later one never ran
    const write = rows.findIndex((line) => line.includes('write counter = 1 (race)'));
    const read = rows.findIndex((line) => line.includes('read counter (race)'));
    expect(rows[write - 2]).toMatch(/ 0 {2}create T1/);
    expect(rows[write - 1]).toMatch(/^\s+read counter = 0 /);
    expect(rows[write + 1]).toMatch(/ 1 {2}\s+start/);
    expect(read).toBe(write + 2);
  });

  it('keeps the JSON fields of every kind of bug', async () => {
    const race = toJson(await checkAllInterleavings(fixture('lost_update.c'))) as { tests: [{ bug: object }] };
    expect(Object.keys(race.tests[0].bug)).toEqual(
      ['kind', 'message', 'preemptions', 'schedule', 'location', 'thread', 'threads', 'steps', 'output', 'threadsTakingPart', 'accesses', 'accessesNearFailure', 'race', 'consequence']);
    const deadlock = toJson(await checkAllInterleavings(fixture('deadlock_two_locks.c'))) as { tests: [{ bug: object }] };
    expect(Object.keys(deadlock.tests[0].bug)).toEqual(['kind', 'message', 'preemptions', 'schedule', 'location', 'thread', 'threads', 'steps', 'output', 'threadsTakingPart']);
  });
});
