// The soundness comparison shared by test/por.test.ts (a fixed seed set) and
// test/support/soundness-main.ts (many seeds). dfs runs every schedule, so it is the ground
// truth: on one random program, every other registered exhaustive strategy must see the same bug
// outcomes and final states as dfs — a bounded one at each bound 0..maxBound, an unbounded
// one as unbounded dfs — and must not claim to be complete while dfs sees more. Behaviours
// are what the program shows (its output, its failures), not classes computed from the
// dependence table under test, so a wrong table cannot hide its own error. Beside them, the
// classes: every happens-before class dfs runs, as the explorers' own race finder orders
// steps (explore-all.ts: coverageClass), must be run too. Final states show only what the
// program prints; a class missed shows a reversal, backtrack point, sleep set or bound
// gone wrong even where the program's output cannot tell (two readers inside a read
// section at once were missed that way until the generator counted them). The table's
// finer fingerprint counts executions of a class already run, which the strategies that
// promise one execution per class must not have. A search stops at its first bug, so where
// both dfs and the strategy saw a bug, their other differences are listed apart (past a
// bug); but a bug only the strategy sees stays a problem at the first bound where it saw
// any: it may be the one shown, claiming fewer preemptions than it needs.
import { createStrategy, strategyNames } from '../../src/explore/strategies.js';
import { UnexplorableHarnessError } from '../../src/explore/driver.js';
import { UnsupportedHarnessError } from '../../src/explore/unsupported.js';
import { isSplitStrategy } from '../../src/explore/subtree-host.js';
import { DivergencePastBug, type Exploration, type Observed, exploreAll, within } from './explore-all.js';
import { exploreInSubtrees, splitDifferences } from './subtrees-in-process.js';

/** A bound no program here needs: unbounded dfs, and the bound an unbounded strategy gets. */
const UNBOUNDED = 1000;
/**
 * The limit for a program whose unbounded dfs passes any a test could give it: compared at the
 * bounds alone, as one cut short at its limit is, without running unbounded dfs to the limit
 * only to leave it out.
 */
export const BOUNDS_ONLY = 0;
/** Strategies that promise at most one execution per happens-before class. */
const ONE_EXECUTION_PER_CLASS = new Set(['graph', 'hbcache', 'optimal']);
/**
 * Scheduling points before an execution counts as a livelock: a generated program takes
 * fewer than 100 unless a thread spins with no one left to run (then every step is waste).
 */
const MAX_STEPS = 200;
/**
 * Executions a checked strategy may run: optimal ordering the asides of a program whose
 * threads yield may run millions (their classes fingerprinted here would fill the heap).
 */
const STRATEGY_LIMIT = 100_000;
/** bpor and graph split into subtrees (parallel exploration): by this many workers, taking turns drawn from the seed */
const SPLIT_WORKERS = 3;
const SPLIT_SEED = 7;
/** dfs, bpor and graph split into shards (explore/shard.ts, graph/strategy.ts): this many, each explored on its own */
const SHARDS = 3;

export interface StrategyRuns {
  /** counted executions, at the largest bound (unbounded strategies: all) */
  executions: number;
  /** runs abandoned as redundant */
  wasted: number;
}

export interface Soundness {
  /**
   * Differences a user could meet, one line each: a behaviour missed where dfs saw no bug,
   * no bug where dfs saw one, a behaviour dfs never saw, a wrong claim to be complete.
   */
  problems: string[];
  /**
   * Behaviours missed where both dfs and the strategy saw a bug. In normal use exploration
   * stops at the first bug, so these are not seen; the oracle goes on past failing
   * executions (which end early: their steps never race with what other threads would have
   * done next).
   */
  pastBug: string[];
  /** a strategy that promises one execution per class ran one twice, or ran more than dfs */
  redundant: string[];
  /** unbounded dfs exceeded the execution limit (or was not run: BOUNDS_ONLY): unbounded strategies and completeness claims went unchecked */
  dfsTruncated: boolean;
  /** strategies stopped at STRATEGY_LIMIT executions: compared only at the bounds they finished, if bounded */
  truncated: string[];
  /** strategies that refused the program: it uses what they do not model (graph: UnsupportedHarnessError) */
  refused: string[];
  runs: Record<string, StrategyRuns>;
}

/**
 * `only`: the strategies to check (default: every registered one). `splits`: also split dfs,
 * bpor and graph into shards, and bpor and graph among simulated workers, and compare what the parts saw.
 */
export async function checkSoundness(
  file: string, mode: 'drf' | 'sc', maxBound: number, limit = Infinity, only?: readonly string[], splits = true,
): Promise<Soundness> {
  const problems: string[] = [];
  const pastBug: string[] = [];
  const redundant: string[] = [];
  const truncated: string[] = [];
  const refused: string[] = [];
  // bounded dfs past the cap (four or five threads that yield): the bounds it finished are the truth
  const dfs = await exploreAll(file, 'dfs', maxBound, mode, STRATEGY_LIMIT, MAX_STEPS, {}, undefined, false);
  const dfsFinished = dfs.truncated ? dfs.byBound.length - 2 : maxBound;
  if (dfs.truncated) truncated.push('dfs');
  const everything = limit === BOUNDS_ONLY ? undefined : await exploreAll(file, 'dfs', UNBOUNDED, mode, limit, MAX_STEPS, {}, undefined, false);
  const all = everything?.truncated === false ? everything : undefined;
  const runs: Record<string, StrategyRuns> = { dfs: { executions: dfs.executions, wasted: 0 } };
  /** what each strategy explored alone, for its shards to match */
  const serial = new Map<string, Exploration>([['dfs', dfs]]);
  for (const name of only ?? strategyNames()) {
    if (name === 'dfs') continue;
    const { bounded, exhaustive } = createStrategy(name, { maxBound });
    // a sampler promises no coverage to compare (random, pct)
    if (exhaustive === false) continue;
    let run: Exploration;
    try {
      run = await exploreAll(file, name, bounded ? maxBound : UNBOUNDED, mode, STRATEGY_LIMIT, MAX_STEPS, {}, undefined, ONE_EXECUTION_PER_CLASS.has(name));
    } catch (error) {
      // a strategy that refuses the harness says so to its user (hbcache: yields, more than 32 threads; graph: what it does not model)
      if (error instanceof UnsupportedHarnessError) refused.push(name);
      else if (error instanceof DivergencePastBug) pastBug.push(`${name}: ${error.message}, in a run made from a failing execution (which ends its search in normal use)`);
      else if (!(error instanceof UnexplorableHarnessError && error.code === 'limit')) problems.push(`${name}: ${(error as Error).message}`);
      continue;
    }
    runs[name] = { executions: run.executions, wasted: run.wasted };
    if (!run.truncated) serial.set(name, run);
    if (run.truncated) {
      truncated.push(name);
      // a bounded run cut short is still compared at the bounds it finished
      if (!bounded) continue;
    }
    const check = (what: string, seen: Observed, truth: Observed, bugBefore: boolean) => {
      let differences = compare(`${name} ${what}`, truth, seen, bugBefore);
      // a claim to have seen everything, checked where dfs within the bound could not show it wrong
      if (differences.problems.length + differences.pastBug.length === 0 && seen.complete && all)
        differences = compare(`${name} ${what} claims complete; unbounded dfs`, all, seen, bugBefore);
      problems.push(...differences.problems);
      pastBug.push(...differences.pastBug);
      if (seen.executions > truth.executions && bounded) redundant.push(`${name} ${what}: ${seen.executions} executions, dfs ${truth.executions}`);
      if (ONE_EXECUTION_PER_CLASS.has(name) && seen.repeats > 0) redundant.push(`${name} ${what}: ${seen.repeats} executions of a class it had already run`);
    };
    if (bounded) {
      // a run cut short: its last snapshot is the bound it did not finish
      const lastFinished = Math.min(run.truncated ? run.byBound.length - 2 : maxBound, dfsFinished);
      for (let bound = 0; bound <= lastFinished; bound++) check(`bound ${bound}`, within(run, bound), within(dfs, bound), bound > 0 && within(run, bound - 1).bugs.size > 0);
      // split among workers (parallel.ts), it must run what the serial search runs
      if (isSplitStrategy(name) && splits && !run.truncated)
        problems.push(...splitDifferences(run, await exploreInSubtrees(file, SPLIT_WORKERS, SPLIT_SEED, maxBound, mode, MAX_STEPS, {}, Number.POSITIVE_INFINITY, undefined, name), maxBound));
    } else if (all) check('unbounded', run, all, false);
  }
  // split into shards, each explored alone: together they see what dfs sees (dfs and graph: run what they run alone, exactly)
  for (const name of ['dfs', 'bpor', 'graph'].filter((name) => splits && serial.has(name) && (only === undefined || only.includes(name)))) {
    const shards = await exploreShards(file, name, maxBound, mode);
    if (shards.some((shard) => shard.truncated)) continue;
    // a shard of bpor or graph on workers must run what it runs on one
    if (isSplitStrategy(name))
      for (const [at, alone] of shards.entries()) {
        const shard = { index: at + 1, count: SHARDS };
        const split = await exploreInSubtrees(file, SPLIT_WORKERS, SPLIT_SEED, maxBound, mode, MAX_STEPS, {}, Number.POSITIVE_INFINITY, shard, name);
        problems.push(...splitDifferences(alone, split, maxBound).map((line) => `shard ${at + 1}/${SHARDS}: ${line}`));
      }
    for (let bound = 0; bound <= dfsFinished; bound++) {
      const together = joined(shards.map((shard) => within(shard, bound)));
      const what = `${name} in ${SHARDS} shards bound ${bound}`;
      const bugBefore = bound > 0 && shards.some((shard) => within(shard, bound - 1).bugs.size > 0);
      const differences = compare(what, within(dfs, bound), together, bugBefore);
      problems.push(...differences.problems);
      pastBug.push(...differences.pastBug);
      const alone = within(serial.get(name)!, bound);
      if (name !== 'bpor' && together.executions !== alone.executions) problems.push(`${what}: ${together.executions} executions, serial ${alone.executions}`);
    }
  }
  return { problems, pastBug, redundant, dfsTruncated: everything?.truncated ?? true, truncated, refused, runs };
}

/**
 * How a strategy meets a program it is meant to refuse, explored as checkSoundness explores it
 * but without the dfs runs, which a refusal is never compared with: 'refused: ' and its message
 * (UnsupportedHarnessError: checkSoundness lists it in `refused`), 'error: ' and the message of
 * any other error, or 'explored' (checkSoundness would then compare it with dfs).
 */
export async function refusal(file: string, mode: 'drf' | 'sc', maxBound: number, strategy: string): Promise<string> {
  const { bounded } = createStrategy(strategy, { maxBound });
  try {
    await exploreAll(file, strategy, bounded ? maxBound : UNBOUNDED, mode, STRATEGY_LIMIT, MAX_STEPS, {}, undefined, ONE_EXECUTION_PER_CLASS.has(strategy));
  } catch (error) {
    return `${error instanceof UnsupportedHarnessError ? 'refused' : 'error'}: ${(error as Error).message}`;
  }
  return 'explored';
}

async function exploreShards(file: string, strategy: string, maxBound: number, mode: 'drf' | 'sc'): Promise<Exploration[]> {
  const shards: Exploration[] = [];
  for (let index = 1; index <= SHARDS; index++) shards.push(await exploreAll(file, strategy, maxBound, mode, STRATEGY_LIMIT, MAX_STEPS, {}, { index, count: SHARDS }, false));
  return shards;
}

/** What the shards saw together. */
function joined(parts: Observed[]): Observed {
  const union = (pick: (part: Observed) => Set<string>) => new Set(parts.flatMap((part) => [...pick(part)]));
  return {
    executions: parts.reduce((sum, part) => sum + part.executions, 0), classes: union((part) => part.classes), repeats: 0,
    coverage: union((part) => part.coverage), readsFrom: union((part) => part.readsFrom), wasted: parts.reduce((sum, part) => sum + part.wasted, 0), bugs: union((part) => part.bugs),
    finalStates: union((part) => part.finalStates), complete: parts.every((part) => part.complete), truncated: false,
  };
}

/** The behaviours one side saw and the other did not, with an example of each. */
/** `bugBefore`: the strategy saw a bug at a lower bound (that one is shown, and was compared there). */
function compare(what: string, truth: Observed, seen: Observed, bugBefore: boolean): { problems: string[]; pastBug: string[] } {
  const problems: string[] = [];
  const pastBug: string[] = [];
  const example = (items: string[]) => (items.length > 0 ? ` (e.g. ${JSON.stringify(items[0]!.slice(0, 300))})` : '');
  if (truth.bugs.size > 0 && seen.bugs.size === 0) problems.push(`${what}: dfs finds a bug${example([...truth.bugs])}, it finds none`);
  const kinds: [string, Set<string>, Set<string>][] = [['bugs', truth.bugs, seen.bugs], ['final states', truth.finalStates, seen.finalStates]];
  // a failing run ends early, so its races with what other threads would have done next are
  // never seen: classes are compared only where the strategy saw no bug
  if (seen.bugs.size === 0) kinds.push(['classes', truth.coverage, seen.coverage], ['reads-from classes', truth.readsFrom, seen.readsFrom]);
  for (const [kind, dfsSet, otherSet] of kinds) {
    const onlyDfs = [...dfsSet].filter((x) => !otherSet.has(x));
    const onlyOther = [...otherSet].filter((x) => !dfsSet.has(x));
    // where both saw a bug, a search stops at the first (the one shown): what either sees past it is promised to no one;
    // a bug of its own is past it only when it had seen one at a lower bound
    const past = truth.bugs.size > 0 && seen.bugs.size > 0 && (kind !== 'bugs' || bugBefore);
    if (onlyOther.length > 0) (past ? pastBug : problems).push(`${what}: ${kind}: ${onlyOther.length} seen only by it${example(onlyOther)}`);
    // no bug at all is reported above
    if (onlyDfs.length === 0 || (kind === 'bugs' && otherSet.size === 0)) continue;
    const line = `${what}: ${kind}: ${onlyDfs.length} seen only by dfs${example(onlyDfs)}`;
    (seen.bugs.size > 0 ? pastBug : problems).push(line);
  }
  return { problems, pastBug };
}
