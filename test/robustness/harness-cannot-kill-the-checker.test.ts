// Whatever a harness does — overflow its stacks, loop without a scheduling point, run
// longer than maxSteps — the checker reports it and keeps running: every case here runs
// in this Vitest worker's own process, then checks another file in the same process.
import { describe, expect, it } from 'vitest';

import { type CheckOptions, type TestResult, checkAllInterleavings } from '../../src/index.js';
import { fixture, runCli } from '../support/harness.js';

async function results(file: string, options: CheckOptions = {}): Promise<Map<string, TestResult>> {
  const result = await checkAllInterleavings(fixture(`robustness/${file}`), options);
  return new Map(result.tests.map((test) => [test.name, test]));
}

/** The process that ran the harness still checks other files correctly. */
async function expectCheckerAlive(): Promise<void> {
  const after = await checkAllInterleavings(fixture('deadlock_two_locks.c'));
  expect(after.tests[0]).toMatchObject({ status: 'fail', bug: { kind: 'deadlock' } });
}

describe('stack overflows that jump a small guard are stack overflows of the right thread', () => {
  it('printf at every level of a deep recursion, a 1 MB frame, alloca(100 MB)', async () => {
    const tests = await results('stack_overflows.c');
    for (const name of ['printf_at_every_level_of_a_deep_recursion', 'a_one_megabyte_frame', 'alloca_of_100_megabytes'])
      expect(tests.get(name), name).toMatchObject({ status: 'fail', bug: { kind: 'crash', thread: 1, message: 'stack overflow in thread 1' } });
    // the recursion printed more than the output buffer holds: it is cut, not overrun
    expect(tests.get('printf_at_every_level_of_a_deep_recursion')?.bug?.output).toMatch(/\[weft: output truncated\]\n$/);
    expect(tests.get('runs_after_the_overflows')).toMatchObject({ status: 'pass' });
    await expectCheckerAlive();
  });
});

describe('a loop with no shared access is stopped by the watchdog', () => {
  it('reports a hang in the looping thread at the loop, within the limit', async () => {
    const started = performance.now();
    const tests = await results('endless_local_loop.c', { hangTimeoutMs: 200 });
    expect(performance.now() - started).toBeLessThan(3_000);
    const hang = tests.get('loops_without_a_shared_access');
    expect(hang).toMatchObject({ status: 'fail', bug: { kind: 'hang', thread: 1, location: { file: 'fixtures/robustness/endless_local_loop.c', line: 9 } } });
    expect(hang?.bug?.message).toBe('T1 ran for more than 200 ms without reaching a scheduling point: a loop with no shared access?');
    expect(tests.get('runs_after_the_hang')).toMatchObject({ status: 'pass' });
    await expectCheckerAlive();
  });

  it('from the command line: --hang-timeout-ms, exit status 1, kind hang in the JSON', () => {
    const run = runCli(['check', fixture('robustness/endless_local_loop.c'), '--hang-timeout-ms', '200', '--json']);
    expect(run.status).toBe(1);
    const { tests } = JSON.parse(run.stdout);
    expect(tests.map((test: TestResult) => [test.name, test.status, test.bug?.kind])).toEqual([
      ['loops_without_a_shared_access', 'fail', 'hang'],
      ['runs_after_the_hang', 'pass', undefined],
    ]);
  });

  it('leaves alone an execution that keeps reaching scheduling points for longer than the limit', async () => {
    // one execution of 120,000 steps takes about 100 ms, four times the limit; a limit of a
    // few ms would also catch the machine's scheduler holding the thread back (seen under load)
    const tests = await results('long_but_finite.c', { hangTimeoutMs: 25, maxSteps: 200_000, maxBound: 0, strategy: 'dfs' });
    expect(tests.get('needs_more_steps_than_max_steps')).toMatchObject({ status: 'pass', executions: 1 });
  });
});

describe('maxSteps reached', () => {
  it('by a terminating program is a step limit naming what each thread was doing, not a livelock', async () => {
    const test = (await results('long_but_finite.c', { maxBound: 0 })).get('needs_more_steps_than_max_steps');
    expect(test?.bug?.kind).toBe('step-limit');
    expect(test?.bug?.message).toMatch(
      /^step limit reached \(maxSteps = 50,000\): T0 is at (lock|unlock) lock \(fixtures\/robustness\/long_but_finite\.c:1[46]\); T1 is at start \(fixtures\/robustness\/long_but_finite\.c:11\)$/,
    );
    await expectCheckerAlive();
  });

  it('by threads that only repeat the same steps with the same values is a livelock', async () => {
    const test = (await checkAllInterleavings(fixture('detectors/livelock.c'), { maxSteps: 2000 })).tests[0];
    expect(test?.bug?.kind).toBe('livelock');
  });
});

describe('code the loader would run outside every execution', () => {
  it("a constructor runs in every execution as harness code: the thread it starts is explored", async () => {
    const test = (await results('constructor_starts_a_thread.c')).get('sees_what_the_constructor_did');
    // it allocated and counted once per execution; its thread had not run yet in the first
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'assertion', message: "the constructor's thread has not published yet" } });
    expect(test?.bug?.steps[0]).toMatchObject({ thread: 0, op: 'create', target: 'T1', location: { line: 24 } });
    await expectCheckerAlive();
  });

  it.each([
    ['an atexit handler', [], /exit_handlers\.c:15: 'atexit' is not supported by weft: exit handlers would run when the checker exits/],
    ['a destructor', ['--cflags=-DWITH_DESTRUCTOR'], /exit_handlers\.c:8: destructors \(__attribute__\(\(destructor\)\)\) are not supported by weft/],
  ])('%s is refused before anything runs', (_, flags, message) => {
    const run = runCli(['check', fixture('robustness/exit_handlers.c'), ...flags]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
  });
});

describe("writes off the end of a global are bugs, and cannot reach the runtime's state", () => {
  it('a loop 12 or 20 bytes past an array and a 1 MB memcpy are out-of-bounds bugs; races are still found after them', async () => {
    const tests = await results('global_overflow.c');
    const loopMessage = "global access out of bounds: 4-byte write just past the end of 'table' (16 bytes)";
    for (const name of ['writes_12_bytes_past_a_global_array', 'writes_20_bytes_past_a_global_array'])
      expect(tests.get(name), name).toMatchObject({ status: 'fail', bug: { kind: 'memory', message: loopMessage, location: { line: 15 } } });
    expect(tests.get('copies_a_megabyte_past_a_global_array')).toMatchObject({
      status: 'fail',
      bug: { kind: 'memory', message: "global access out of bounds: 1048576-byte write at offset 0 of 'table' runs past its end (16 bytes)", location: { line: 23 } },
    });
    expect(tests.get('races_are_still_detected')).toMatchObject({ status: 'fail', bug: { kind: 'race' } });
    await expectCheckerAlive();
  });
});
