// bpor and graph on several worker processes (src/explore/parallel.ts): the search split into
// subtrees runs exactly what the serial search runs, bound by bound; a bug, a crash, a
// hang, a budget and a worker that dies are reported as a user expects.
import { spawn } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import { cliPath, packageRoot } from '../src/paths.js';
import { exploreAll } from './support/explore-all.js';
import { fixture, runCli } from './support/harness.js';
import { workersOf } from './support/processes.js';
import { exploreInSubtrees, splitDifferences } from './support/subtrees-in-process.js';

const MAX_BOUND = 3;

/** The fixtures a split must get right: joins, barriers, condition variables, data choices, spins, main returning early. */
const splitFixtures: [string, string[]][] = [
  ['por/choice_after_step.c', []],
  ['por/readers_writer.c', []],
  ['por/locked_increments.c', ['-DTHREADS=3']],
  ['por/barrier_deadlock.c', []],
  ['soundness/join_hands_over.c', []],
  ['soundness/one_signal_two_waiters.c', []],
  ['soundness/spin_loops.c', []],
  ['soundness/unstarted_threads.c', []],
];

describe('bpor split into subtrees, taking turns drawn from a seed', () => {
  it.each(splitFixtures)('%s: the executions and classes of the serial search at every bound, on any turns', async (name, cflags) => {
    const file = fixture(name);
    // false: no happens-before fingerprints (classes), which splitDifferences does not read
    const serial = await exploreAll(file, 'bpor', MAX_BOUND, 'sc', Number.POSITIVE_INFINITY, 10_000, { cflags }, undefined, false);
    for (const seed of [1, 2]) {
      const split = await exploreInSubtrees(file, 3, seed, MAX_BOUND, 'sc', 10_000, { cflags });
      expect(split.given, 'subtrees given away').toBeGreaterThan(0);
      expect(splitDifferences(serial, split, MAX_BOUND)).toEqual([]);
    }
  });
});

/** What the graph engine models: mutexes, semaphores and spin locks, barriers, choices that change a thread's path, joins, main's own work. */
const graphSplitFixtures: [string, string[], 'sc' | 'drf'][] = [
  ['por/locked_increments.c', ['-DTHREADS=3'], 'drf'],
  ['graph/semaphores_spin_locks.c', [], 'drf'],
  ['graph/barrier_rounds.c', [], 'sc'],
  ['graph/choice_changes_path.c', [], 'sc'],
  ['graph/choice_deleted_by_revisit.c', [], 'sc'],
  ['soundness/counting_reads.c', [], 'drf'],
  ['soundness/four_threads_loads_stores.c', [], 'sc'],
];

describe('graph split into items, taking turns drawn from a seed', () => {
  it.each(graphSplitFixtures)('%s: the executions and classes of the serial search at every bound and unbounded, on any turns', async (name, cflags, mode) => {
    const file = fixture(name);
    for (const maxBound of [MAX_BOUND, Number.POSITIVE_INFINITY]) {
      const serial = await exploreAll(file, 'graph', maxBound, mode, Number.POSITIVE_INFINITY, 10_000, { cflags }, undefined, false);
      for (const seed of [1, 2]) {
        const split = await exploreInSubtrees(file, 3, seed, maxBound, mode, 10_000, { cflags }, Number.POSITIVE_INFINITY, undefined, 'graph');
        expect(split.given, 'items given away').toBeGreaterThan(0);
        expect(splitDifferences(serial, split, Number.isFinite(maxBound) ? maxBound : 0)).toEqual([]);
      }
    }
  });
});

describe('a budget shared out among workers', () => {
  it.each([1, 37, 500])('stops at %i executions exactly, on any turns (bpor and graph)', async (budget) => {
    for (const strategy of ['bpor', 'graph'] as const) {
      for (const seed of [1, 2, 3]) {
        // graph: 552 executions within bound 3 (3 × 2 increments: 90 in all)
        const cflags = strategy === 'graph' ? ['-DTHREADS=3', '-DINCREMENTS=3'] : ['-DTHREADS=3'];
        const split = await exploreInSubtrees(fixture('por/locked_increments.c'), 3, seed, 4, 'sc', 10_000, { cflags }, budget, undefined, strategy);
        expect(split.budgetStop, `${strategy} seed ${seed}`).toBe(budget);
      }
    }
  });
});

const lockedIncrements = ['check', fixture('por/locked_increments.c'), '--cflags', '-DTHREADS=3', '--mode', 'sc', '--strategy', 'bpor', '--json'];

describe('weft check --workers', () => {
  it('runs the executions of one worker, with the same guarantee', () => {
    const [one, two] = ['1', '2'].map((workers) => {
      const run = runCli([...lockedIncrements, '--max-bound', '4', '--workers', workers]);
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout).tests[0];
    });
    expect(one).toMatchObject({ status: 'pass', complete: false, strategy: 'bpor' });
    expect(two.executions).toBe(one.executions);
    expect(two.redundantRuns).toBe(one.redundantRuns);
    expect(two.guarantee).toBe(one.guarantee);
  });

  it.each(['bound 3', 'unbounded'])('graph, %s: runs the executions of one worker, with the same guarantee', (bound) => {
    const [one, two] = ['1', '2'].map((workers) => {
      const run = runCli([...lockedIncrements, '--strategy', 'graph', '--max-bound', bound === 'unbounded' ? 'unbounded' : '3', '--workers', workers]);
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout).tests[0];
    });
    expect(one).toMatchObject({ status: 'pass', strategy: 'graph' });
    expect(two.executions).toBe(one.executions);
    expect(two.redundantRuns).toBe(one.redundantRuns);
    expect(two.guarantee).toBe(one.guarantee);
  });

  it('graph: finds a bug with the fewest preemptions on workers, as on one', () => {
    const run = runCli(['check', fixture('lost_update.c'), '--mode', 'sc', '--strategy', 'graph', '--workers', '2', '--json']);
    expect(run.status, run.stderr).toBe(1);
    expect(JSON.parse(run.stdout).tests[0]).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'assertion', preemptions: 1 } });
  });

  it('graph: a harness it does not model is explored with bpor on workers as on one, saying why; a shard refuses it (its other shards may not), exit 2', () => {
    const check = (...more: string[]) => runCli(['check', fixture('soundness/one_signal_two_waiters.c'), '--strategy', 'graph', ...more, '--json']);
    const [one, two] = [check('--workers', '1'), check('--workers', '2')];
    const test = (run: typeof one) => JSON.parse(run.stdout).tests[0];
    expect(two.status, two.stderr).toBe(one.status);
    expect(test(two)).toMatchObject({ strategy: 'bpor', fallback: test(one).fallback, bug: { kind: test(one).bug.kind, preemptions: test(one).bug.preemptions } });
    expect(test(two).fallback).toMatch(/^strategy graph does not support wait .*: explored with strategy bpor instead$/);
    const shard = check('--workers', '1', '--shard', '1/2');
    expect(shard.status).toBe(2);
    expect(test(shard)).toMatchObject({ status: 'error', error: expect.stringMatching(/^strategy graph does not support wait .*\)$/) });
  });

  it('finds a bug with the fewest preemptions, and its replay string replays it', () => {
    const run = runCli(['check', fixture('lost_update.c'), '--mode', 'sc', '--strategy', 'bpor', '--workers', '2', '--json']);
    expect(run.status, run.stderr).toBe(1);
    const test = JSON.parse(run.stdout).tests[0];
    expect(test).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'assertion', preemptions: 1 } });
    const replay = runCli(['replay', fixture('lost_update.c'), '--schedule', test.bug.schedule, '--json']);
    expect(JSON.parse(replay.stdout).tests[0]).toMatchObject({ status: 'fail', bug: { kind: 'assertion', preemptions: 1 } });
  });

  it('reports crashes and hangs of harness code in a worker as bugs, as one worker does', () => {
    const crashes = runCli(['check', fixture('robustness/stack_overflows.c'), '--strategy', 'bpor', '--workers', '2', '--json']);
    const overflows = JSON.parse(crashes.stdout).tests.map((test: { name: string; status: string; bug?: { kind: string } }) => [test.name, test.status, test.bug?.kind]);
    expect(overflows).toContainEqual(['a_one_megabyte_frame', 'fail', 'crash']);
    expect(overflows).toContainEqual(['runs_after_the_overflows', 'pass', undefined]);
    const hang = runCli(['check', fixture('robustness/endless_local_loop.c'), '--strategy', 'bpor', '--workers', '2', '--hang-timeout-ms', '200', '--json']);
    expect(JSON.parse(hang.stdout).tests.map((test: { status: string; bug?: { kind: string } }) => [test.status, test.bug?.kind])).toEqual([['fail', 'hang'], ['pass', undefined]]);
  });

  it('stops every worker at the execution budget and says how far it got', () => {
    const run = runCli([...lockedIncrements, '--max-bound', '6', '--workers', '2', '--max-executions', '500']);
    expect(run.status, run.stderr).toBe(0);
    const test = JSON.parse(run.stdout).tests[0];
    expect(test).toMatchObject({ status: 'pass', partial: true, complete: false });
    expect(test.executions).toBeGreaterThanOrEqual(500);
  });

  it('says the search is incomplete when a worker process dies, and exits 2', async () => {
    const cli = spawn(process.execPath, [cliPath, ...lockedIncrements, '--cflags', '-DTHREADS=4 -DINCREMENTS=3', '--max-bound', '8', '--workers', '2'], {
      cwd: packageRoot, env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    cli.stdout.on('data', (chunk) => { stdout += chunk; });
    const exited = new Promise<number | null>((resolve) => cli.on('exit', resolve));
    // the CLI's worker processes: its children running the worker script
    let worker: number | undefined;
    while (worker === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      worker = workersOf(cli.pid!)[0];
    }
    process.kill(worker, 'SIGKILL');
    expect(await exited).toBe(2);
    expect(JSON.parse(stdout).tests[0]).toMatchObject({
      status: 'error', error: 'a worker process of the parallel search ended (signal SIGKILL): the search is incomplete',
    });
  });
});
