// Parallel exploration's protocol without processes: several SubtreeHosts on one harness,
// taking turns drawn from a seed, with the messages delivered after random delays (in
// order, as a pipe keeps them). What each counted execution showed is collected bound by
// bound, so that the split search can be compared with the serial one (soundness-check.ts).
import { buildHarness, type BuildOptions } from '../../src/compile/compile.js';
import { borrowHarness, returnHarness } from '../../src/addon/harness-pool.js';
import { Outcome } from '../../src/addon/ops.js';
import { Coordinator } from '../../src/explore/coordinator.js';
import type { ExecutionView } from '../../src/explore/strategy.js';
import { type CoordinatorMessage, type HostMessage, SubtreeHost } from '../../src/explore/subtree-host.js';
import { coverageClass } from './explore-all.js';

/** What the split search had run once the iteration of one bound was done (cumulative). */
export interface SplitBound {
  executions: number;
  coverage: Set<string>;
  /** the iteration left choices beyond its bound */
  beyondBound: boolean;
}

export interface SplitExploration {
  byBound: SplitBound[];
  /** subtrees given away */
  given: number;
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

export async function exploreInSubtrees(
  file: string, workers: number, seed: number, maxBound: number, mode: 'drf' | 'sc' = 'sc', maxSteps = 10_000, build: BuildOptions = {},
): Promise<SplitExploration> {
  const library = buildHarness(file, build).library;
  const harness = borrowHarness(library);
  try {
    const next = random(seed);
    const pending: (() => void)[] = []; // messages in flight, oldest first
    const coverage = new Set<string>();
    const coordinator = new Coordinator(Array.from({ length: workers }, (_, i) => ({
      post: (message: CoordinatorMessage) => pending.push(() => hosts[i]!.handle(message)),
    })));
    let executionCoverage = '';
    const options = { test: 0, maxSteps, mode: mode === 'sc' ? 1 : 0, flags: 0, nondetDomain: new Float64Array([0, 1]), visible: new Float64Array(0) };
    const hosts = Array.from({ length: workers }, (_, i) => new SubtreeHost(harness, options, (message: HostMessage) => {
      // a host reports after each execution here (below), so a count is the execution just run
      if (message.kind === 'counts' && message.executions > 0) coverage.add(executionCoverage);
      pending.push(() => coordinator.onMessage(i, message));
    }, (view: ExecutionView) => {
      if (view.outcome === Outcome.DIVERGENCE) throw new Error(`nondeterministic harness: ${harness.result().message}`);
      executionCoverage = coverageClass(view);
    }));
    const byBound: SplitBound[] = [];
    let turns = 0;
    for (let bound = 0; bound <= maxBound; bound++) {
      coordinator.start(bound);
      while (!coordinator.over) {
        const runnable = hosts.filter((host) => host.runnable);
        if (pending.length > 0 && (runnable.length === 0 || next() < 0.5)) pending.shift()!();
        else if (runnable.length > 0) {
          const host = runnable[Math.floor(next() * runnable.length)]!;
          host.step();
          host.flushCounts();
          host.reportIdle();
        } else throw new Error('parallel exploration stalled: nothing to run, no message in flight');
        if (++turns % 1000 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      while (pending.length > 0) pending.shift()!(); // the idle reports of the iteration's end
      if (coordinator.unexplorable) throw new Error(`the split search stopped: ${coordinator.unexplorable.message}`);
      byBound.push({ executions: coordinator.executions, coverage: new Set(coverage), beyondBound: coordinator.beyondBound });
      if (!coordinator.beyondBound) break;
    }
    return { byBound, given: coordinator.given };
  } finally {
    returnHarness(library, harness);
  }
}
