// Parallel exploration's protocol without processes: several SubtreeHosts on one harness and
// the coordinator, with every message delivered after a random delay drawn from a seed — in
// order on its own channel (coordinator to one worker, one worker to the coordinator), as a
// pipe keeps them, and in any order across channels; the next bound starts while messages of
// the last are still in flight, as in parallel.ts. What each counted execution showed is
// collected bound by bound, so that the split search can be compared with the serial one
// (soundness-check.ts, test/parallel.test.ts); with a budget, it must stop at it exactly.
import { buildHarness, type BuildOptions } from '../../src/compile/compile.js';
import { receivedError } from '../../src/errors.js';
import { borrowHarness, returnHarness } from '../../src/addon/harness-pool.js';
import { Outcome } from '../../src/addon/ops.js';
import { Coordinator } from '../../src/explore/coordinator.js';
import type { Shard } from '../../src/explore/shard.js';
import type { ExecutionView } from '../../src/explore/strategy.js';
import { type CoordinatorMessage, type HostMessage, type SplitStrategy, SubtreeHost, subtreeSearches } from '../../src/explore/subtree-host.js';
import { type Exploration, coverageClass, within } from './explore-all.js';
import { yieldEvery50Ms } from './event-loop.js';

/** What the split search had run once the iteration of one bound was done (cumulative). */
export interface SplitBound {
  executions: number;
  coverage: Set<string>;
  /** the iteration left choices beyond its bound */
  beyondBound: boolean;
}

export interface SplitExploration {
  strategy: SplitStrategy;
  byBound: SplitBound[];
  /** subtrees given away */
  given: number;
  /** stopped by the budget, with this many executions */
  budgetStop?: number;
}

/**
 * How the split search differs from the serial one (exploreAll's) at bounds 0..maxBound: in
 * executions, or in classes run. Empty: it ran what the serial search runs.
 */
export function splitDifferences(serial: Exploration, split: SplitExploration, maxBound: number): string[] {
  const differences: string[] = [];
  for (let bound = 0; bound <= maxBound; bound++) {
    const alone = within(serial, bound);
    const apart = split.byBound[Math.min(bound, split.byBound.length - 1)]!;
    const what = `${split.strategy} split (${split.given} subtrees given away) bound ${bound}`;
    if (apart.executions !== alone.executions) differences.push(`${what}: ${apart.executions} executions, serial ${alone.executions}`);
    const missed = [...alone.coverage].filter((c) => !apart.coverage.has(c)).length;
    const extra = [...apart.coverage].filter((c) => !alone.coverage.has(c)).length;
    if (missed + extra > 0) differences.push(`${what}: classes: ${missed} only serial, ${extra} only split`);
  }
  return differences;
}

/** xorshift32: the same turns for the same seed */
function random(seed: number): () => number {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** More turns than any fixture here needs: past them the protocol is taken to be stuck. */
const MAX_TURNS = 20_000_000;

export async function exploreInSubtrees(
  file: string, workers: number, seed: number, maxBound: number, mode: 'drf' | 'sc' = 'sc', maxSteps = 10_000, build: BuildOptions = {},
  budget = Number.POSITIVE_INFINITY, shard?: Shard, strategy: SplitStrategy = 'bpor',
): Promise<SplitExploration> {
  const library = buildHarness(file, build).library;
  const harness = borrowHarness(library);
  try {
    const next = random(seed);
    const toWorker: (() => void)[][] = Array.from({ length: workers }, () => []);
    const toCoordinator: (() => void)[][] = Array.from({ length: workers }, () => []);
    const coverage = new Set<string>();
    const coordinator = new Coordinator(Array.from({ length: workers }, (_, i) => ({
      post: (message: CoordinatorMessage) => toWorker[i]!.push(() => {
        const host = hosts[i]!;
        host.handle(message);
        // as parallel-worker.ts does after every message
        host.flushCounts();
        host.reportIdle();
      }),
    })), budget, shard);
    let executionCoverage = '';
    const options = { test: 0, maxSteps, mode: mode === 'sc' ? 1 : 0, flags: 0, nondetDomain: new Float64Array([0, 1]), visible: new Float64Array(0) };
    const hosts = Array.from({ length: workers }, (_, i) => new SubtreeHost(harness, options, subtreeSearches(strategy, harness.result()), (message: HostMessage) => {
      // a host reports after each execution here (below), so a count is the execution just run
      if (message.kind === 'counts' && message.executions > 0) coverage.add(executionCoverage);
      toCoordinator[i]!.push(() => coordinator.onMessage(i, message));
    }, (view: ExecutionView) => {
      if (view.outcome === Outcome.DIVERGENCE) throw new Error(`nondeterministic harness: ${harness.result().message}`);
      executionCoverage = coverageClass(view);
    }));
    const byBound: SplitBound[] = [];
    let bound = 0;
    coordinator.start(bound, maxBound);
    for (let turn = 1; ; turn++) {
      if (coordinator.executions > budget) throw new Error(`the split search ran ${coordinator.executions} executions, over its budget of ${budget}`);
      if (coordinator.executions === budget) return { strategy, byBound, given: coordinator.given, budgetStop: budget };
      if (coordinator.unexplorable) throw new Error(`the split search stopped: ${coordinator.unexplorable.message}`);
      if (coordinator.refused) throw receivedError(coordinator.refused);
      if (coordinator.over) {
        byBound.push({ executions: coordinator.executions, coverage: new Set(coverage), beyondBound: coordinator.beyondBound });
        if (!coordinator.beyondBound || bound === maxBound) return { strategy, byBound, given: coordinator.given };
        coordinator.start(++bound, maxBound);
        continue;
      }
      const channels = [...toWorker, ...toCoordinator].filter((channel) => channel.length > 0);
      const runnable = hosts.filter((host) => host.runnable);
      if (channels.length > 0 && (runnable.length === 0 || next() < 0.5)) channels[Math.floor(next() * channels.length)]!.shift()!();
      else if (runnable.length > 0) {
        const host = runnable[Math.floor(next() * runnable.length)]!;
        host.step();
        host.flushCounts();
        host.reportIdle();
      } else throw new Error(`parallel exploration stalled at bound ${bound} after ${coordinator.executions} executions: nothing to run, no message in flight`);
      if (turn === MAX_TURNS) throw new Error(`parallel exploration stuck at bound ${bound} after ${coordinator.executions} executions`);
      await yieldEvery50Ms();
    }
  } finally {
    returnHarness(library, harness);
  }
}
