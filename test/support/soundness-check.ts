// The soundness comparison shared by test/por.test.ts (a fixed seed set) and
// test/support/soundness-main.ts (many seeds). dfs runs every schedule, so it is the ground
// truth: on one random program, every other registered strategy must see the same bug
// outcomes and final states as dfs — a bounded one at each bound 0..maxBound, an unbounded
// one as unbounded dfs — and must not claim to be complete while dfs sees more. Behaviours
// are what the program shows (its output, its failures), not classes computed from the
// dependence table under test, so a wrong table cannot hide its own error; the table's class
// fingerprint only counts executions of a class already run, which the strategies that
// promise one execution per class must not have.
import { createStrategy, strategyNames } from '../../src/explore/strategies.js';
import { TRACE_CAPACITY } from '../../src/native/ops.js';
import { type Observed, exploreAll, within } from './explore-all.js';

/** A bound no program here needs: unbounded dfs, and the bound an unbounded strategy gets. */
const UNBOUNDED = 1000;
/** Strategies that promise at most one execution per happens-before class. */
const ONE_EXECUTION_PER_CLASS = new Set(['hbcache', 'optimal']);

export interface StrategyRuns {
  /** counted executions, at the largest bound (unbounded strategies: all) */
  executions: number;
  /** runs abandoned as redundant */
  wasted: number;
}

export interface Soundness {
  /** one line per difference found; empty when sound */
  problems: string[];
  /** unbounded dfs exceeded the execution limit: unbounded strategies and completeness claims went unchecked */
  dfsTruncated: boolean;
  runs: Record<string, StrategyRuns>;
}

export async function checkSoundness(file: string, mode: 'drf' | 'sc', maxBound: number, limit = Infinity): Promise<Soundness> {
  const problems: string[] = [];
  const dfs = await exploreAll(file, 'dfs', maxBound, mode);
  const everything = within(await exploreAll(file, 'dfs', UNBOUNDED, mode, limit), UNBOUNDED);
  const all = everything.truncated ? undefined : everything;
  const runs: Record<string, StrategyRuns> = { dfs: { executions: within(dfs, maxBound).executions, wasted: 0 } };
  for (const name of strategyNames()) {
    if (name === 'dfs') continue;
    const bounded = createStrategy(name, { maxBound, seed: 1, capacity: TRACE_CAPACITY }).bounded;
    let run;
    try {
      run = await exploreAll(file, name, bounded ? maxBound : UNBOUNDED, mode);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
      continue;
    }
    const last = within(run, UNBOUNDED);
    runs[name] = { executions: last.executions, wasted: last.wasted };
    const check = (what: string, seen: Observed, truth: Observed) => {
      const differences = compare(`${name} ${what}`, truth, seen);
      problems.push(...differences);
      // a claim to have seen everything, checked where dfs within the bound could not show it wrong
      if (differences.length === 0 && seen.complete && all) problems.push(...compare(`${name} ${what} claims complete; unbounded dfs`, all, seen));
      if (seen.executions > truth.executions && bounded) problems.push(`${name} ${what}: ${seen.executions} executions, dfs ${truth.executions}`);
      if (ONE_EXECUTION_PER_CLASS.has(name) && seen.repeats > 0) problems.push(`${name} ${what}: ${seen.repeats} executions of a class it had already run`);
    };
    if (bounded) for (let bound = 0; bound <= maxBound; bound++) check(`bound ${bound}`, within(run, bound), within(dfs, bound));
    else if (all) check('unbounded', last, all);
  }
  return { problems, dfsTruncated: everything.truncated, runs };
}

/** The behaviours one side saw and the other did not, with an example of each. */
function compare(what: string, truth: Observed, seen: Observed): string[] {
  const problems: string[] = [];
  for (const [kind, dfsSet, otherSet] of [['bugs', truth.bugs, seen.bugs], ['final states', truth.finalStates, seen.finalStates]] as const) {
    const onlyDfs = [...dfsSet].filter((x) => !otherSet.has(x));
    const onlyOther = [...otherSet].filter((x) => !dfsSet.has(x));
    if (onlyDfs.length + onlyOther.length === 0) continue;
    const example = (items: string[]) => (items.length > 0 ? ` (e.g. ${JSON.stringify(items[0]!.slice(0, 300))})` : '');
    problems.push(`${what}: ${kind}: ${onlyDfs.length} seen only by dfs${example(onlyDfs)}, ${onlyOther.length} only by it${example(onlyOther)}`);
  }
  return problems;
}
