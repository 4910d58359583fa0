// One exploration split into shards (src/explore/shard.ts), each explored alone, and joined
// by weft merge (src/report/merge.ts): dfs's shards run exactly the serial executions,
// bpor's every class the serial search runs; the merged result says what one run says.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { withThousands } from '../src/numbers.js';
import { type Exploration, exploreAll, within } from './support/explore-all.js';
import { fixture, removeAfterAll, runCli, writeHarness } from './support/harness.js';
import { exploreInSubtrees, splitDifferences } from './support/subtrees-in-process.js';

const MAX_BOUND = 3;
const SHARDS = 4;

/** The fixtures a split must get right: joins, barriers, condition variables, data choices, spins, main returning early. */
const shardFixtures: [string, string[]][] = [
  ['por/choice_after_step.c', []],
  ['soundness/readers_together.c', []],
  ['por/locked_increments.c', []],
  ['por/barrier_deadlock.c', []],
  ['soundness/join_hands_over.c', []],
  ['soundness/one_signal_two_waiters.c', []],
  ['soundness/spin_loops.c', []],
  ['soundness/unstarted_threads.c', []],
];

async function inShards(file: string, strategy: string, cflags: string[]): Promise<Exploration[]> {
  const shards: Exploration[] = [];
  for (let index = 1; index <= SHARDS; index++)
    // false: no happens-before fingerprints (classes, repeats), which nothing here reads
    shards.push(await exploreAll(file, strategy, MAX_BOUND, 'sc', Number.POSITIVE_INFINITY, 10_000, { cflags }, { index, count: SHARDS }, false));
  return shards;
}

const union = (shards: Exploration[], bound: number, pick: (seen: ReturnType<typeof within>) => Set<string>) =>
  new Set(shards.flatMap((shard) => [...pick(within(shard, bound))]));

describe('shards of one search, each explored alone', () => {
  it.each(shardFixtures)('%s: dfs shards run the serial executions, once each; bpor shards every class', async (name, cflags) => {
    const file = fixture(name);
    const dfs = await exploreAll(file, 'dfs', MAX_BOUND, 'sc', Number.POSITIVE_INFINITY, 10_000, { cflags }, undefined, false);
    const dfsShards = await inShards(file, 'dfs', cflags);
    const bporShards = await inShards(file, 'bpor', cflags);
    for (let bound = 0; bound <= MAX_BOUND; bound++) {
      const serial = within(dfs, bound);
      expect(dfsShards.reduce((sum, shard) => sum + within(shard, bound).executions, 0), `dfs bound ${bound}`).toBe(serial.executions);
      expect(union(dfsShards, bound, (seen) => seen.coverage), `dfs bound ${bound}`).toEqual(serial.coverage);
      const bporClasses = union(bporShards, bound, (seen) => seen.coverage);
      expect([...serial.coverage].filter((c) => !bporClasses.has(c)), `bpor bound ${bound}: classes dfs runs`).toEqual([]);
      expect(union(bporShards, bound, (seen) => seen.bugs), `bpor bound ${bound}`).toEqual(serial.bugs);
    }
    // the work is split: more than one shard counts executions
    expect(dfsShards.filter((shard) => shard.executions > 0).length).toBeGreaterThan(1);
  });
});

describe('a shard of bpor on several workers (the protocol without processes, turns drawn from a seed)', () => {
  it.each(shardFixtures)('%s: every shard runs the executions and classes it runs on one', async (name, cflags) => {
    const file = fixture(name);
    let given = 0;
    for (let index = 1; index <= SHARDS; index++) {
      const shard = { index, count: SHARDS };
      const alone = await exploreAll(file, 'bpor', MAX_BOUND, 'sc', Number.POSITIVE_INFINITY, 10_000, { cflags }, shard, false);
      const split = await exploreInSubtrees(file, 3, index, MAX_BOUND, 'sc', 10_000, { cflags }, Number.POSITIVE_INFINITY, shard);
      given += split.given;
      expect(splitDifferences(alone, split, MAX_BOUND), `shard ${index}/${SHARDS}`).toEqual([]);
    }
    expect(given, 'subtrees given away').toBeGreaterThan(0);
  });
});

/** `weft check --shard index/count --json`, its report written to a file: its path. */
function checkShard(args: string[], index: number, count = SHARDS): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-shards-'));
  removeAfterAll(dir);
  const run = runCli(['check', ...args, '--shard', `${index}/${count}`, '--json']);
  expect(run.status, run.stderr).toBeLessThan(2);
  const report = join(dir, `shard-${index}.json`);
  writeFileSync(report, run.stdout);
  return report;
}

/** checkShard for every shard: their paths. */
const checkShards = (args: string[], count = SHARDS): string[] => Array.from({ length: count }, (_, at) => checkShard(args, at + 1, count));

const lockedIncrements = [fixture('por/locked_increments.c'), '--cflags', '-DTHREADS=3', '--mode', 'sc', '--max-bound', '3'];

/** checkShards of lockedIncrements with dfs, and its serial check's JSON, run once for the tests below that only read them */
let dfsReports: string[] | undefined;
const dfsShardReports = (): string[] => (dfsReports ??= checkShards([...lockedIncrements, '--strategy', 'dfs']));
let dfsSerial: string | undefined;
const dfsSerialReport = (): string => (dfsSerial ??= runCli(['check', ...lockedIncrements, '--strategy', 'dfs', '--json']).stdout);

describe('weft check --shard and weft merge', () => {
  it('dfs: the merged result has the serial executions, status and guarantee', () => {
    const serial = JSON.parse(dfsSerialReport()).tests[0];
    const reports = dfsShardReports();
    const merged = runCli(['merge', ...reports, '--json']);
    expect(merged.status, merged.stderr).toBe(0);
    const test = JSON.parse(merged.stdout).tests[0];
    expect(test).toMatchObject({ name: 'locked_increments', status: 'pass', executions: serial.executions, complete: serial.complete, bound: serial.bound, strategy: 'dfs' });
    expect(test.guarantee).toBe(`${serial.guarantee}; ${SHARDS} shards merged`);
    const text = runCli(['merge', ...reports]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`✓ locked_increments  ${withThousands(serial.executions)} executions`);
  });

  it('graph: the merged result has the serial executions, status and guarantee', () => {
    const serial = JSON.parse(runCli(['check', ...lockedIncrements, '--strategy', 'graph', '--json']).stdout).tests[0];
    const merged = runCli(['merge', ...checkShards([...lockedIncrements, '--strategy', 'graph']), '--json']);
    expect(merged.status, merged.stderr).toBe(0);
    const test = JSON.parse(merged.stdout).tests[0];
    expect(test).toMatchObject({ status: 'pass', executions: serial.executions, complete: serial.complete, strategy: 'graph' });
    expect(test.guarantee).toBe(`${serial.guarantee}; ${SHARDS} shards merged`);
  });

  it('the default strategy becomes bpor: every shard is needed, the serial guarantee holds', () => {
    const serial = JSON.parse(runCli(['check', ...lockedIncrements, '--strategy', 'bpor', '--workers', '1', '--json']).stdout).tests[0];
    const reports = checkShards(lockedIncrements);
    const shard = JSON.parse(readFileSync(reports[1]!, 'utf8'));
    expect(shard.shard).toMatchObject({ index: 2, count: 4 });
    // a shard claims only its part
    expect(shard.tests[0]).toMatchObject({ strategy: 'bpor', complete: false, shard: { stoppedBy: 'max-bound', bound: 3, guarantee: serial.guarantee } });
    expect(shard.tests[0].guarantee).toBe(`shard 2/4 only (weft merge joins the shards): ${serial.guarantee}`);
    const test = JSON.parse(runCli(['merge', ...reports, '--json']).stdout).tests[0];
    expect(test).toMatchObject({ status: 'pass', complete: false, bound: 3, strategy: 'bpor' });
    expect(test.guarantee).toBe(`${serial.guarantee}; ${SHARDS} shards merged`);
    expect(test.executions).toBeGreaterThanOrEqual(serial.executions);
  });

  it('bpor shards on 2 worker processes run what they run on one; dfs shards bound delays too', () => {
    for (const index of [1, 2]) {
      const [one, two] = ['1', '2'].map((workers) =>
        JSON.parse(runCli(['check', ...lockedIncrements, '--max-bound', '4', '--shard', `${index}/2`, '--workers', workers, '--json']).stdout).tests[0]);
      expect(two).toMatchObject({ executions: one.executions, guarantee: one.guarantee, strategy: 'bpor' });
    }
    const delays = [fixture('por/locked_increments.c'), '--cflags', '-DTHREADS=4', '--bound', 'delay', '--max-bound', '3'];
    const serial = JSON.parse(runCli(['check', ...delays, '--json']).stdout).tests[0];
    const merged = JSON.parse(runCli(['merge', ...checkShards(delays, 3), '--json']).stdout).tests[0];
    expect(merged).toMatchObject({ strategy: 'dfs', executions: serial.executions, guarantee: `${serial.guarantee}; 3 shards merged` });
  });

  it('a bug: the one with the fewest preemptions, whose replay string replays it', () => {
    const reports = checkShards([fixture('lost_update.c'), '--mode', 'sc', '--strategy', 'dfs', '--max-bound', '3']);
    const merged = runCli(['merge', ...reports, '--json']);
    expect(merged.status).toBe(1);
    const test = JSON.parse(merged.stdout).tests[0];
    expect(test).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'assertion', preemptions: 1 } });
    expect(test.shard, 'a merged result is no shard').toBeUndefined();
    expect(test.guarantee).toMatch(/^bug found at bound 1 after [\d,]+ executions \(shard \d\/4; the 4 shards ran [\d,]+ executions\)$/);
    const replay = runCli(['replay', fixture('lost_update.c'), '--schedule', test.bug.schedule, '--json']);
    expect(replay.status).toBe(1);
    expect(JSON.parse(replay.stdout).tests[0].bug.message).toBe(test.bug.message);
  });

  it('one file, however its path is written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-shards-'));
    removeAfterAll(dir);
    const reports = ['fixtures/locked_counter.c', './fixtures/locked_counter.c'].map((file, at) => {
      const report = join(dir, `shard-${at + 1}.json`);
      writeFileSync(report, runCli(['check', file, '--shard', `${at + 1}/2`, '--json']).stdout);
      return report;
    });
    const merged = runCli(['merge', ...reports, '--json']);
    expect(merged.status, merged.stderr).toBe(0);
    expect(JSON.parse(merged.stdout)).toMatchObject({ file: 'fixtures/locked_counter.c', tests: [{ name: 'locked_counter', status: 'pass' }] });
  });

  it('a shard stopped by its budget makes the merged result partial', () => {
    const args = [...lockedIncrements, '--strategy', 'dfs'];
    const reports = dfsShardReports();
    const dir = mkdtempSync(join(tmpdir(), 'weft-shards-'));
    removeAfterAll(dir);
    const stopped = join(dir, 'shard-1.json');
    writeFileSync(stopped, runCli(['check', ...args, '--shard', '1/4', '--max-executions', '5', '--json']).stdout);
    const merged = runCli(['merge', stopped, ...reports.slice(1), '--json']);
    expect(merged.status).toBe(0);
    const test = JSON.parse(merged.stdout).tests[0];
    expect(test).toMatchObject({ status: 'pass', partial: true, complete: false });
    expect(test.guarantee).toMatch(/^budget exhausted \(maxExecutions\) during bound \d after [\d,]+ executions; .*; 4 shards merged; stopped by its budget: shard 1\/4 \(maxExecutions\)$/);
    expect(runCli(['merge', stopped, ...reports.slice(1), '--require-complete']).status).toBe(1);
  });

  it('refuses reports that do not make one whole exploration, with one message', () => {
    const reports = dfsShardReports();
    const refused = (args: string[], message: RegExp) => {
      const run = runCli(['merge', ...args]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    };
    refused(reports.slice(1), /shard 1\/4 missing: the guarantee needs every shard/);
    refused([...reports, reports[0]!], /shard 1\/4 is given twice/);
    refused([...reports.slice(0, 3), checkShard([...lockedIncrements, '--strategy', 'dfs', '--max-bound', '2'], 2, 2)], /shards of different splits/);
    refused([...reports.slice(0, 3), checkShard([...lockedIncrements.slice(0, -1), '2', '--strategy', 'dfs'], 4)], /explored different builds or options/);
    const dir = mkdtempSync(join(tmpdir(), 'weft-shards-'));
    removeAfterAll(dir);
    const whole = join(dir, 'whole.json');
    writeFileSync(whole, dfsSerialReport());
    refused([whole], /was not checked as a shard/);
    const text = join(dir, 'text.txt');
    writeFileSync(text, runCli(['check', ...lockedIncrements, '--strategy', 'dfs', '--shard', '1/2']).stdout);
    refused([text], /is not JSON/);
    refused([join(dir, 'absent.json')], /cannot read/);
  });

  it('refuses shards that a data race sent into different searches, and shards cut short by an interrupt', () => {
    // the race on counter needs both choices 1: one shard finds it and makes counter a
    // scheduling point, which renumbers the nodes of its search; the others never see it
    const harness = writeHarness(`#include <pthread.h>
#include <weft.h>
static int counter;
static int both;
static void *increment(void *unused) {
  (void)unused;
  if (both) counter++;
  return NULL;
}
WEFT_TEST(race_only_on_one_choice) {
  counter++;
  int a = weft_choose(2);
  int b = weft_choose(2);
  both = a && b;
  pthread_t t;
  pthread_create(&t, NULL, increment, NULL);
  if (both) counter++;
  pthread_join(t, NULL);
  weft_assert(!both || counter == 3);
}
`);
    const args = [harness, '--strategy', 'dfs', '--races', 'warn', '--max-bound', '2'];
    expect(runCli(['check', ...args]).status, 'one search finds what the race breaks').toBe(1);
    const reports = checkShards(args);
    // (of 4 shards, none finds what the race breaks in its part: before the check they merged into a pass)
    const merged = runCli(['merge', ...reports]);
    expect(merged.status).toBe(2);
    expect(merged.stderr).toMatch(/made different racy locations scheduling points .* check every shard with --mode sc, or with races error/);
    const sc = runCli(['merge', ...checkShards([harness, '--mode', 'sc', '--strategy', 'dfs', '--max-bound', '2'])]);
    expect(sc.status).toBe(1);
    // a report whose shard an interrupt stopped (exit 130, interrupted: true)
    const cut = JSON.parse(readFileSync(reports[0]!, 'utf8'));
    writeFileSync(reports[0]!, JSON.stringify({ ...cut, interrupted: true }));
    const interrupted = runCli(['merge', ...reports]);
    expect(interrupted.status).toBe(2);
    expect(interrupted.stderr).toContain('the shard was interrupted before it explored its part: check it again');
  });

  it('--shard takes i/n, and a strategy that splits', () => {
    for (const [value, message] of [['0/4', /--shard needs i\/n with 1 ≤ i ≤ n/], ['5/4', /--shard needs i\/n/], ['one', /--shard needs i\/n/]] as const) {
      const run = runCli(['check', fixture('lost_update.c'), '--shard', value]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    const optimal = runCli(['check', fixture('lost_update.c'), '--shard', '1/2', '--strategy', 'optimal']);
    expect(optimal.status).toBe(2);
    expect(optimal.stderr).toContain('strategy optimal cannot be split into shards (its wakeup sequences carry work from one subtree into another)');
  });
});
