import { readFileSync, writeFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { fixture, runCli, unwrapped, writeHarness } from './support/harness.js';

describe('weft check', () => {
  it('prints a counterexample with a replay string and exits 1 on a bug', () => {
    const run = runCli(['check', 'fixtures/lost_update.c', '--mode', 'sc']);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('✗ lost_update');
    expect(run.stdout).toContain('assertion failed: counter == 2');
    expect(run.stdout).toContain('at fixtures/lost_update.c:20 in thread T0 · 1 preemption');
    expect(run.stdout).toMatch(/replay: weft1:lost_update:sc:[\d*.]+/);
  });

  it('exits 0 with a pass line when every test passes', () => {
    const run = runCli(['check', 'fixtures/locked_counter.c', '--max-bound', '3']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/✓ locked_counter {2}\d+ executions · .* · complete: every interleaving explored/);
  });

  it('--json prints the contract object', () => {
    const run = runCli(['check', 'fixtures/deadlock_two_locks.c', '--json', '--strategy', 'dfs']);
    expect(run.status).toBe(1);
    const json = JSON.parse(run.stdout);
    expect(json.file).toBe('fixtures/deadlock_two_locks.c');
    expect(json.tests).toHaveLength(1);
    const [test] = json.tests;
    expect(test).toMatchObject({ name: 'lock_order', status: 'fail', bound: 1, complete: false });
    expect(test.executions).toBeGreaterThan(0);
    expect(typeof test.elapsedMs).toBe('number');
    expect(test.bug).toMatchObject({ kind: 'deadlock', preemptions: 1, location: { file: 'fixtures/deadlock_two_locks.c' } });
    expect(test.bug.schedule).toMatch(/^weft1:lock_order:drf:/);
    expect(typeof test.bug.message).toBe('string');
  });

  it('--test selects tests and --max-executions stops with an honest guarantee', () => {
    const run = runCli(['check', 'fixtures/core/initial_state.c', '--json', '--max-executions', '10', '--max-bound', '5']);
    expect(run.status).toBe(0);
    const [test] = JSON.parse(run.stdout).tests;
    expect(test).toMatchObject({ status: 'pass', executions: 10, complete: false });
    expect(test.guarantee).toContain('budget exhausted (maxExecutions)');
  });
});

describe('an unbounded search stops at its first bug, at no bound', () => {
  it('optimal: the bug\'s bound is the preemptions it needs, and the report claims no fewer fail (it did not explore them first)', () => {
    const run = runCli(['check', 'fixtures/lost_update.c', '--mode', 'sc', '--strategy', 'optimal', '--json']);
    expect(run.status, run.stderr).toBe(1);
    const test = JSON.parse(run.stdout).tests[0];
    expect(test).toMatchObject({ status: 'fail', bound: 1, bug: { preemptions: 1 }, found: { fewest: false } });
    expect(test.guarantee).toBe('bug found by optimal DPOR, unbounded, after 2 executions, shown with 1 preemption');
  });
});

describe('weft replay', () => {
  it('reproduces the exact failing execution from its replay string', () => {
    const check = JSON.parse(runCli(['check', 'fixtures/lost_update.c', '--mode', 'sc', '--json']).stdout);
    const schedule = check.tests[0].bug.schedule;
    const replay = runCli(['replay', 'fixtures/lost_update.c', '--schedule', schedule, '--json']);
    expect(replay.status).toBe(1);
    const replayed = JSON.parse(replay.stdout).tests[0];
    expect(replayed).toMatchObject({ name: 'lost_update', executions: 1, bug: { kind: 'assertion', preemptions: 1, schedule } });
    expect(replayed.bug.steps).toEqual(check.tests[0].bug.steps);
  });

  it('a replay string names the build it was recorded on; an old string without it still replays', () => {
    const check = JSON.parse(runCli(['check', 'fixtures/lost_update.c', '--mode', 'sc', '--json']).stdout);
    const schedule: string = check.tests[0].bug.schedule;
    expect(schedule).toMatch(/^weft1:lost_update:sc:[\d*.]+:[0-9a-f]{12}$/);
    const withoutBuild = schedule.replace(/:[0-9a-f]{12}$/, '');
    const replay = runCli(['replay', 'fixtures/lost_update.c', '--schedule', withoutBuild, '--json']);
    expect(replay.status).toBe(1);
    expect(JSON.parse(replay.stdout).tests[0].bug).toMatchObject({ kind: 'assertion', schedule });
  });

  it('replaying after the code changed says so, instead of blaming the harness', () => {
    const file = writeHarness(readFileSync(fixture('lost_update.c'), 'utf8'), 'lost_update.c');
    const schedule: string = JSON.parse(runCli(['check', file, '--mode', 'sc', '--json']).stdout).tests[0].bug.schedule;
    // the thread no longer touches counter: the recorded schedule cannot be followed
    writeFileSync(file, readFileSync(file, 'utf8').replace('  counter++;', '  (void)0;'));
    const changed = runCli(['replay', file, '--schedule', schedule]);
    expect(changed.status).toBe(2);
    expect(unwrapped(changed.stdout)).toMatch(/the source code changed since this schedule was recorded \(build [0-9a-f]{12}; now [0-9a-f]{12}\): it no longer fits/);
    expect(changed.stdout).not.toContain('nondeterministic');
    // without a build identity weft cannot tell: the old message
    const old = runCli(['replay', file, '--schedule', schedule.replace(/:[0-9a-f]{12}$/, '')]);
    expect(old.status).toBe(2);
    expect(unwrapped(old.stdout)).toContain('the replay does not fit this harness');
    expect(unwrapped(old.stdout)).toContain('the replay string names no build, so changed code or compiler flags may be the cause too');
    // a string from before identities had parts: a different build, what changed unknown
    const older = runCli(['replay', file, '--schedule', schedule.replace(/:([0-9a-f]{8})[0-9a-f]{4}$/, ':$1')]);
    expect(unwrapped(older.stdout)).toMatch(/this schedule was recorded on a different build \(build [0-9a-f]{8}; now [0-9a-f]{12}\): the source, the compiler flags or the toolchain changed/);
    // a change the schedule still fits replays, and says the code changed
    writeFileSync(file, readFileSync(fixture('lost_update.c'), 'utf8').replace('static int counter;', 'static int counter; /* edited */'));
    const comment = runCli(['replay', file, '--schedule', schedule, '--json']);
    expect(comment.status).toBe(1);
    expect(JSON.parse(comment.stdout).tests[0].guarantee).toContain('the source code changed since this schedule was recorded');
  });

  it('rejects a malformed replay string with exit 2', () => {
    const run = runCli(['replay', 'fixtures/lost_update.c', '--schedule', 'nonsense']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('not a weft replay string');
  });
});

describe('bad input: exit 2 and one clear message', () => {
  it.each([
    ['a missing file', ['check', 'fixtures/does_not_exist.c'], 'weft: no such file: fixtures/does_not_exist.c'],
    ['a compile error', ['check', 'fixtures/core/compile_error.c'], "weft: fixtures/core/compile_error.c:5:11: error: 'undeclared_variable' undeclared (first use in this function)"],
    ['an unsupported symbol', ['check', 'fixtures/core/uses_fork.c'], "weft: fixtures/core/uses_fork.c:6: 'fork' is not supported by weft: processes cannot run under weft's scheduler"],
    ['an unknown option', ['check', 'fixtures/lost_update.c', '--frobnicate'], "weft: unknown option '--frobnicate'"],
    ['a bad number', ['check', 'fixtures/lost_update.c', '--max-bound', 'two'], "weft: --max-bound needs a whole number from 0 to 10,000 or unbounded, got 'two'"],
    ['an unknown strategy', ['check', 'fixtures/lost_update.c', '--strategy', 'magic'], "weft: --strategy must be one of auto, bpor, dfs, graph, hbcache, optimal, pct, random; got 'magic'"],
    ['a check-only option given to replay', ['replay', 'fixtures/lost_update.c', '--schedule', 'weft1:lost_update:drf:0', '--strategy', 'dfs'], 'weft: --strategy does not apply to weft replay'],
    ['an unknown test', ['check', 'fixtures/lost_update.c', '--test', 'nope'], "weft: fixtures/lost_update.c has no test named 'nope' (it has: lost_update)"],
    ['no file', ['check'], 'weft: weft check: no C file given'],
    ['an unknown command', ['frob'], "weft: unknown command 'frob'"],
  ])('%s', (_, args, message) => {
    const run = runCli(args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toContain(message);
  });

  it('reports a nondeterministic harness instead of ignoring the divergence', () => {
    const run = runCli(['check', 'fixtures/core/nondeterministic.c', '--strategy', 'dfs']);
    expect(run.status).toBe(2);
    expect(run.stdout).toContain('the harness is nondeterministic');
    expect(run.stdout).toContain('not enabled');
  });
});
