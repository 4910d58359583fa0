// Counterexamples that show the data and name the right bug (issue 40), on harnesses
// written from the bugs' descriptions: a lost update through a lock dropped between the
// read and the write, a Treiber stack whose pop frees a node another popper reads, a
// reference-counted object released with a relaxed decrement, an exchange lock, a CAS.
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { checkAllInterleavings, renderTest } from '../src/index.js';
import type { Bug, BugStep } from '../src/report/bug.js';
import { stepText } from '../src/report/render.js';
import { counted } from '../src/numbers.js';
import { buildChanges } from '../src/report/replay.js';
import { UNBREAKABLE_SPACE, wrapText } from '../src/report/wrap.js';
import { fixture, runCli, unwrapped, writeHarness } from './support/harness.js';

const bugOf = async (name: string): Promise<Bug> => (await checkAllInterleavings(fixture(`counterexamples/${name}`))).tests[0]!.bug!;
/** the rows of a thread, as the table writes them */
const rowsOf = (bug: Bug, thread: number) => [
  ...bug.steps.filter((step) => step.thread === thread).map((step) => ({ at: step.step, text: stepText(step) })),
  ...(bug.accesses ?? []).filter((access) => access.thread === thread).map((access) => ({ at: (access.afterStep ?? -1) + 0.5, text: `${access.access} ${access.target} = ${access.valueText}` })),
].sort((a, b) => a.at - b.at).map((row) => row.text);

describe('the data of the failing run', () => {
  it('shows both threads reading 0 in a lost update whose lock is dropped between the read and the write', async () => {
    const bug = await bugOf('relock_counter.c');
    expect(bug.kind).toBe('assertion');
    for (const thread of [1, 2]) expect(rowsOf(bug, thread)).toEqual(expect.arrayContaining(['read counter = 0', 'write counter = 1']));
    // the reads and writes of counter lead to the failed check: never folded away
    const counterRows = [...bug.steps, ...(bug.accesses ?? [])].filter((row) => row.target === 'counter');
    expect(counterRows.length).toBeGreaterThanOrEqual(5);
    expect(counterRows.every((row) => row.leadsToFailure)).toBe(true);
    const text = renderTest((await checkAllInterleavings(fixture('counterexamples/relock_counter.c'))).tests[0]!, { color: false, width: 100 });
    expect(text.match(/read counter = 0/g)).toHaveLength(2);
  });

  it('shows the count a consumer woken by `if` instead of `while` finds, and folds none of the rows that lead there', async () => {
    const result = await checkAllInterleavings(fixture('counterexamples/if_wait_queue.c'));
    const bug = result.tests[0]!.bug!;
    const text = renderTest(result.tests[0]!, { color: false, width: 100 });
    const rows = text.split('\n');
    const wake = rows.findIndex((row) => /\bwake q\.nonempty\b/.test(row));
    expect(rows[wake + 1]).toMatch(/^\s+read q\.count = 0\s+if_wait_queue\.c:30/);
    const countRows = (bug.accesses ?? []).filter((access) => access.target === 'q.count');
    expect(countRows.length).toBeGreaterThanOrEqual(6);
    expect(countRows.every((access) => access.leadsToFailure)).toBe(true);
    expect(text).not.toContain('⋮');
  });
});

describe('frees and lifetimes', () => {
  it('names a race with a free as one, on the field the other popper read, with the allocation and the free', async () => {
    const bug = await bugOf('tstack_pop.c');
    const header = readFileSync(fixture('counterexamples/tstack.h'), 'utf8').split('\n');
    const freeLine = header.findIndex((line) => line.includes('free(old)')) + 1;
    const nextLine = header.findIndex((line) => line.includes('old->next')) + 1;
    expect(bug.kind === 'race' && bug.race.variable).toMatch(/^node#\d\.next$/);
    expect(bug.message).toMatch(new RegExp(`^free racing a read: T\\d frees node#\\d at \\S+tstack\\.h:${freeLine}, unordered with T\\d's read of node#\\d\\.next at \\S+tstack\\.h:${nextLine} \\(in another order, a use after free\\)$`));
    expect(bug.kind === 'race' && bug.race.accesses.map((access) => access.access)).toEqual(['read', 'free']);
    const freed = bug.heapObjects?.find((object) => object.freed);
    expect(freed).toMatchObject({ size: 16, allocated: { line: header.findIndex((line) => line.includes('malloc')) + 1 }, freed: { line: freeLine } });
    // what the race breaks is the use after free itself, not the race again
    expect(bug.consequence?.kind).toBe('memory');
    expect(bug.consequence?.message).toMatch(/^use after free: access to node#\d\.next, inside a freed block/);
  });

  it('names a read after an unordered free a use after free, with the free and the read as rows', async () => {
    const result = await checkAllInterleavings(fixture('counterexamples/read_after_free.c'));
    const bug = result.tests[0]!.bug!;
    expect(bug.message).toMatch(/^use after free: T0 reads item#1\.count at \S+read_after_free\.c:29 after T1 freed item#1 at \S+read_after_free\.c:17, unordered$/);
    expect(bug.kind === 'race' && bug.race.accesses.map((access) => access.access)).toEqual(['free', 'read']);
    const rows = renderTest(result.tests[0]!, { color: false, width: 100 }).split('\n');
    expect(rows).toContainEqual(expect.stringMatching(/^\s+3\s+free item#1 \(race\)$/));
    expect(rows).toContainEqual(expect.stringMatching(/^\s+read item#1\.count \(race\)$/));
    // main's writes before its first step come first, in the order they ran
    const trace = rows.slice(0, rows.findIndex((row) => row.trim().startsWith('replay:')));
    expect(trace.filter((row) => /^\s+write (shared|item#1\.\w+) = /.test(row)).map((row) => row.trim().split('  ')[0]))
      .toEqual(['write shared = &item#1', 'write item#1.key = 1', 'write item#1.count = 2']);
    expect(bug.consequence?.kind).toBe('memory');
  });

  it('names the field at its own offset in a refcounted object freed after a relaxed decrement, once, and the atomic step it raced with', async () => {
    const result = await checkAllInterleavings(fixture('counterexamples/refobj.c'));
    const bug = result.tests[0]!.bug!;
    expect(bug.kind === 'race' && bug.race.variable).toBe('refobj#1.refs');
    expect(bug.kind === 'race' && bug.race.accesses.map((access) => [access.access, access.atomic ?? false])).toEqual([['write', true], ['free', false]]);
    expect(bug.message).toMatch(/^free racing an atomic write: T(\d) frees refobj#1 at .*, unordered with T(?!\1)\d's atomic write of refobj#1\.refs at /);
    expect(bug.consequence).toBeUndefined();
    const text = renderTest(result.tests[0]!, { color: false, width: 100 });
    expect(text.match(/free racing an atomic write/g)).toHaveLength(1);
    // the decrement is the racing access: its step is marked, with no row of its own
    expect(text).toMatch(/fetch_sub refobj#1\.refs: 2 → 1 \(relaxed\) \(race\)/);
    expect(text).not.toMatch(/write refobj#1\.refs \(race\)/);
  });
});

describe('atomic read-modify-writes', () => {
  const texts = (bug: Bug, pick: (step: BugStep) => boolean) => bug.steps.filter(pick).map(stepText);

  it('shows what an exchange wrote, and a memory order that is not seq_cst', async () => {
    const bug = await bugOf('exchange_lock.c');
    expect(texts(bug, (step) => step.function === 'exchange')).toContain('exchange lock_word: 0 → 1');
    expect(texts(bug, (step) => step.op === 'atomic store')).toContain('atomic store lock_word = 0 (release)');
    expect(bug.steps.find((step) => step.function === 'exchange')).toMatchObject({ value: 0, written: 1 });
    const refobj = await bugOf('refobj.c');
    expect(texts(refobj, (step) => step.function === 'fetch_sub')).toEqual(['fetch_sub refobj#1.refs: 2 → 1 (relaxed)', 'fetch_sub refobj#1.refs: 1 → 0 (relaxed)']);
  });

  it('shows whether a compare-exchange succeeded, what it wrote, and what it found when it failed', async () => {
    const bug = await bugOf('cas_push.c');
    const cas = texts(bug, (step) => step.function === 'cas');
    expect(cas).toHaveLength(2);
    expect(cas).toContainEqual(expect.stringMatching(/^cas top: NULL → &node#(\d) \(succeeded\)$/));
    const [, winner] = /&node#(\d) \(succeeded\)/.exec(cas.join(' '))!;
    expect(cas).toContainEqual(expect.stringMatching(new RegExp(`^cas top: NULL → &node#\\d \\(failed: was &node#${winner}\\)$`)));
    expect(bug.steps.find((step) => step.succeeded === false)).toMatchObject({ expected: 0, expectedText: 'NULL' });
  });
});

describe('heap objects', () => {
  it('numbers blocks in allocation order and lists each with its allocation site once', async () => {
    const result = await checkAllInterleavings(fixture('counterexamples/cas_push.c'));
    const bug = result.tests[0]!.bug!;
    expect(bug.heapObjects?.map((object) => [object.name, object.allocated?.line])).toEqual([['node#1', 17], ['node#2', 17]]);
    const text = renderTest(result.tests[0]!, { color: false, width: 100 });
    expect(text).toMatch(/^ {4}node#1 {2}16 bytes, allocated at cas_push\.c:17$/m);
    expect(text.match(/allocated at/g)).toHaveLength(2);
  });
});

describe('headlines', () => {
  it('says what failed, where, and after how many executions within 100 columns, the search in plain words', () => {
    for (const name of ['relock_counter.c', 'tstack_pop.c', 'cas_push.c', 'refobj.c', 'exchange_lock.c']) {
      const run = runCli(['check', `fixtures/counterexamples/${name}`]);
      expect(run.status).toBe(1);
      const lines = run.stdout.split('\n');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
      expect(lines[1]).toMatch(/^✗ \w+ {2}(assertion failed|free racing an? (atomic )?(read|write)|data race on)/);
      const where = lines.findIndex((line) => /^ {2}at \S+:\d+ in thread T\d · \d+ preemptions?\b/.test(line));
      const story = lines.findIndex((line) => /^ {2}found after \d+ executions?; (no schedule with fewer preemptions fails|it needs no preemption)$/.test(line));
      expect(where).toBeGreaterThan(0);
      // the facts break between each other, never inside one
      expect(lines.slice(where, story).join(' ')).toMatch(/ \d+ executions · [\d.]+ m?s$/);
    }
    const verbose = runCli(['check', fixture('counterexamples/relock_counter.c'), '--verbose']);
    expect(verbose.stdout).toMatch(/^ {2}found after \d+ executions?; no schedule with fewer preemptions fails\n {2}bug found by /m);
  });

  it('wraps a race warning to the width too', () => {
    const run = runCli(['check', 'fixtures/core/heap_race.c', '--races', 'warn']);
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}warning: data race on account#1\.operations: /));
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it('writes numbers one way everywhere', () => {
    expect(counted(1424584, 'execution')).toBe('1,424,584 executions');
    expect(counted(1, 'execution')).toBe('1 execution');
  });
});

describe('every line fits 100 columns when the output is no terminal', () => {
  const lines = (output: string) => output.split('\n');
  /** locked_counter, with a name as long as a descriptive one gets */
  const longName = 'a_counter_that_two_threads_increment_under_one_mutex';
  const longNamed = () => writeHarness(readFileSync(fixture('locked_counter.c'), 'utf8').replace('locked_counter', longName));

  it('a pass, a partial pass and what --require-complete says of it', () => {
    const file = longNamed();
    const pass = runCli(['check', file]);
    expect(pass.status).toBe(0);
    for (const line of lines(pass.stdout)) expect(line.length, line).toBeLessThanOrEqual(100);
    // the test's line goes on past the lines under it (a warning at 2)
    expect(pass.stdout).toMatch(new RegExp(`^✓ ${longName} [^\\n]+\\n {4}\\S`, 'm'));
    expect(unwrapped(pass.stdout)).toMatch(new RegExp(`^✓ ${longName} {2}\\d+ executions · [\\d.]+ m?s · complete: every interleaving explored$`, 'm'));

    const partial = runCli(['check', file, '--max-executions', '1', '--require-complete']);
    expect(partial.status).toBe(1);
    for (const line of [...lines(partial.stdout), ...lines(partial.stderr)]) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(unwrapped(partial.stdout)).toMatch(new RegExp(`~ ${longName} {2}partial: budget exhausted \\(maxExecutions\\) after 1 executions of optimal DPOR, which explores every bound at once; no bound fully explored · 1 execution · `));
    expect(unwrapped(partial.stderr)).toBe(`weft: ${longName}: partial (stopped by the budget), a failure with --require-complete\n`);
  });

  it('a bug beyond maxBound under its pass, its replay string whole', () => {
    const run = runCli(['check', fixture('lost_update.c'), '--max-bound', '0', '--mode', 'sc']);
    expect(run.status).toBe(0);
    for (const line of lines(run.stdout)) expect(line.length, line).toBeLessThanOrEqual(100);
    // a line under the test's goes on past its own start
    expect(run.stdout).toMatch(/^ {2}beyond maxBound: assertion failed: [^\n]+\n {6}\S/m);
    expect(unwrapped(run.stdout)).toMatch(/beyond maxBound: assertion failed: counter == 2, needing 1 preemption \(raise maxBound to fail on it; replay: weft1:lost_update:sc:[\d*.]+:[0-9a-f]{12}\)$/m);
  });

  it('counts what a terminal shows: colour codes take no room', async () => {
    const [test] = (await checkAllInterleavings(longNamed(), { maxExecutions: 1 })).tests;
    const plain = renderTest(test!, { color: false, width: 100 });
    const coloured = renderTest(test!, { color: true, width: 100 });
    expect(coloured).not.toBe(plain);
    expect(coloured.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')).toBe(plain);
    expect(lines(plain).length).toBeGreaterThan(1);
    for (const line of lines(plain)) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it('never breaks a time from its unit', () => {
    // "1 execution · 3.05" would fit 18 columns, leaving "s" alone
    expect(wrapText(`1 execution · 3.05${UNBREAKABLE_SPACE}s`, 18, 4)).toEqual(['1 execution ·', '    3.05 s']);
  });
});

describe('build failures and replays that do not fit', () => {
  it('shows every compiler error, as the compiler printed it', () => {
    const run = runCli(['check', fixture('counterexamples/compile_errors.c')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/compile_errors\.c:5:\d+: error: 'first_undeclared' undeclared/);
    expect(run.stderr).toMatch(/compile_errors\.c:6:\d+: error: 'second_undeclared' undeclared/);
  });

  it('says which part of the build differs: the source, the flags, the toolchain, or an older identity', () => {
    expect(buildChanges('aaaabbbbcccc', 'aaaabbbbcccc')).toBeUndefined();
    expect(buildChanges('aaaabbbbcccc', 'ddddbbbbcccc')).toBe('the source code changed since this schedule was recorded (build aaaabbbbcccc; now ddddbbbbcccc)');
    expect(buildChanges('aaaabbbbcccc', 'aaaabbbbdddd')).toMatch(/^the compiler or weft's runtime changed since/);
    expect(buildChanges('aaaabbbbcccc', 'aaaaddddeeee')).toMatch(/^the compiler flags \(cflags\) and the compiler or weft's runtime changed since/);
    expect(buildChanges('aaaabbbb', 'aaaabbbbcccc')).toMatch(/^this schedule was recorded on a different build \(build aaaabbbb; now aaaabbbbcccc\)/);
  });

  it('names different compiler flags and a changed source as such', () => {
    const file = writeHarness(readFileSync(fixture('counterexamples/relock_counter.c'), 'utf8'), 'relock.c');
    const checked = JSON.parse(runCli(['check', file, '--cflags', '-DEXTRA=1', '--json']).stdout).tests[0];
    expect(checked.found).toEqual({ executions: expect.any(Number), fewest: true });
    const schedule: string = checked.bug.schedule;
    expect(schedule).toMatch(/:[0-9a-f]{12}$/);
    const flags = runCli(['replay', file, '--schedule', schedule, '--json']);
    expect(JSON.parse(flags.stdout).tests[0].guarantee).toMatch(/the compiler flags \(cflags\) changed since this schedule was recorded \(build [0-9a-f]{12}; now [0-9a-f]{12}\)/);
    expect(flags.stdout).not.toContain('source code');
    const withFlags = runCli(['replay', file, '--schedule', schedule, '--cflags', '-DEXTRA=1', '--json']);
    expect(JSON.parse(withFlags.stdout).tests[0].guarantee).not.toContain('changed');
  });
});
