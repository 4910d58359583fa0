// The soundness comparison shared by test/por.test.ts (a fixed seed set) and
// test/support/soundness-main.ts (many seeds): on one random program, bpor and hbcache must see the
// same happens-before classes and final states as dfs at every bound, and never run more
// executions (hbcache: each class once); optimal must see every class of unbounded dfs,
// each exactly once, and waste no run (none abandoned as redundant).
import { exploreAll } from './explore-all.js';
import type { ProgramShape } from './random-programs.js';

const UNBOUNDED = 1000;

export interface Soundness {
  /** one line per difference found; empty when sound */
  problems: string[];
  /** unbounded dfs exceeded the execution limit, so optimal was not compared */
  optimalUnchecked: boolean;
  /** optimal's counted executions and its wasted runs (abandoned as redundant) */
  optimal: { executions: number; wasted: number };
}

export async function checkSoundness(file: string, shape: ProgramShape, maxBound: number, limit = Infinity): Promise<Soundness> {
  const mode = shape.plain ? 'sc' : 'drf';
  const problems: string[] = [];
  for (let bound = 0; bound <= maxBound; bound++) {
    const dfs = await exploreAll(file, 'dfs', bound, mode);
    for (const strategy of ['bpor', 'hbcache']) {
      const reduced = await exploreAll(file, strategy, bound, mode);
      problems.push(
        ...setDifferences(`bound ${bound}: classes`, dfs.classes, reduced.classes, strategy),
        ...setDifferences(`bound ${bound}: final states`, dfs.outputs, reduced.outputs, strategy),
      );
      if (reduced.executions > dfs.executions) problems.push(`bound ${bound}: ${strategy} ran ${reduced.executions} executions, dfs ${dfs.executions}`);
      if (strategy === 'hbcache' && reduced.repeats > 0) problems.push(`bound ${bound}: hbcache ran ${reduced.repeats} executions of classes it had already seen`);
    }
  }
  const optimal = await exploreAll(file, 'optimal', 0, mode);
  const optimalRuns = { executions: optimal.executions, wasted: optimal.wasted };
  if (optimal.wasted > 0) problems.push(`optimal wasted ${optimal.wasted} runs (abandoned as redundant)`);
  const everything = await exploreAll(file, 'dfs', UNBOUNDED, mode, limit);
  if (everything.truncated) return { problems, optimalUnchecked: true, optimal: optimalRuns };
  problems.push(
    ...setDifferences('unbounded: classes', everything.classes, optimal.classes, 'optimal'),
    ...setDifferences('unbounded: final states', everything.outputs, optimal.outputs, 'optimal'),
  );
  if (optimal.repeats > 0) problems.push(`optimal ran ${optimal.repeats} executions of classes it had already seen`);
  return { problems, optimalUnchecked: false, optimal: optimalRuns };
}

function setDifferences(what: string, dfs: Set<string>, other: Set<string>, name: string): string[] {
  const missing = (from: Set<string>, to: Set<string>) => [...from].filter((x) => !to.has(x)).length;
  const onlyDfs = missing(dfs, other);
  const onlyOther = missing(other, dfs);
  return onlyDfs + onlyOther === 0 ? [] : [`${what}: ${onlyDfs} seen only by dfs, ${onlyOther} only by ${name}`];
}
