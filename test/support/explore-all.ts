// Runs a strategy over a harness and collects what every counted execution showed: its
// happens-before class (a fingerprint of the order of conflicting steps) and its output.
import { buildHarness } from '../../src/build/compile.js';
import { accessOf, Access, objectOf } from '../../src/explore/dependence.js';
import { createStrategy } from '../../src/explore/strategies.js';
import type { ExecutionView } from '../../src/explore/strategy.js';
import type { NativeHarness } from '../../src/native/addon.js';
import { borrowHarness, returnHarness } from '../../src/native/harness-pool.js';

export interface Observed {
  executions: number;
  classes: Set<string>;
  /** executions whose class an earlier execution already had */
  repeats: number;
  /** runs the strategy abandoned as redundant (a wasted run each) */
  wasted: number;
  outputs: Set<string>;
  /** stopped at the execution limit: classes and outputs are incomplete */
  truncated: boolean;
}

// Async: the event loop gets a turn every ~50 ms, so that a long exploration inside a Vitest
// worker does not starve the worker's messages to Vitest (they time out after 60 s).
export async function exploreAll(file: string, strategy: string, maxBound: number, mode: 'drf' | 'sc', limit = Infinity): Promise<Observed> {
  const library = buildHarness(file).library;
  const harness = borrowHarness(library);
  try {
    return await explore(harness, strategy, maxBound, mode, limit);
  } finally {
    returnHarness(library, harness);
  }
}

async function explore(harness: NativeHarness, strategy: string, maxBound: number, mode: 'drf' | 'sc', limit: number): Promise<Observed> {
  const trace = harness.trace();
  const explorer = createStrategy(strategy, { maxBound, seed: 1, capacity: trace.capacity });
  const view: ExecutionView = {
    steps: 0, outcome: 0, thread: trace.thread, op: trace.op, object: trace.object, value: trace.value,
    enabled: trace.enabled, pendingOp: trace.pendingOp, pendingObject: trace.pendingObject,
  };
  const observed: Observed = { executions: 0, classes: new Set(), repeats: 0, wasted: 0, outputs: new Set(), truncated: false };
  const none = new Float64Array([0, 1]);
  let sliceEnd = performance.now() + 50;
  for (let bound = 0; bound <= (explorer.bounded ? maxBound : 0); bound++) {
    if (!explorer.beginBound(bound)) break;
    for (let schedule = explorer.next(); schedule; schedule = explorer.next()) {
      const outcome = harness.run(
        0, schedule.decisions, schedule.length, 10_000, mode === 'sc' ? 1 : 0, 0, none, undefined,
        schedule.asleep, schedule.asleepFrom, schedule.planFrom,
      );
      if (outcome !== 0) throw new Error(`execution ended with outcome ${outcome}: ${harness.result().message}`);
      if (performance.now() >= sliceEnd) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceEnd = performance.now() + 50;
      }
      view.steps = trace.status[0]!;
      const { libraryBase, heapBase } = harness.result();
      const fingerprint = happensBeforeClass(view, (object) =>
        object < 0 ? `t${-object}`
          : object - libraryBase >= 0 && object - libraryBase < 2 ** 24 ? `g${object - libraryBase}`
            : object - heapBase >= 0 && object - heapBase < 2 ** 30 ? `h${object - heapBase}` : `${object}`,
      );
      const output = harness.output();
      if (!explorer.observe(view)) {
        observed.wasted++;
        continue;
      }
      if (observed.executions === limit) {
        observed.truncated = true;
        return observed;
      }
      observed.executions++;
      if (observed.classes.has(fingerprint)) observed.repeats++;
      observed.classes.add(fingerprint);
      observed.outputs.add(output);
    }
  }
  return observed;
}

/**
 * Two executions are equivalent (same Mazurkiewicz trace) when every object sees its
 * conflicting steps in the same order: each step is named by its thread and index in
 * that thread, and placed by how many writes to its object came before it.
 */
export function happensBeforeClass(execution: ExecutionView, name: (object: number) => string): string {
  const perThread = new Map<number, number>();
  const writes = new Map<number, number>();
  const steps: string[] = [];
  for (let i = 0; i < execution.steps; i++) {
    const thread = execution.thread[i]!;
    const index = perThread.get(thread) ?? 0;
    perThread.set(thread, index + 1);
    const access = accessOf(execution.op[i]!);
    if (access === Access.NONE) continue;
    const object = objectOf(execution.op[i]!, execution.object[i]!);
    const before = writes.get(object) ?? 0;
    if (access !== Access.READ) writes.set(object, before + 1);
    steps.push(`${thread}.${index}:${execution.op[i]}@${name(object)}#${before}`);
  }
  return steps.sort().join(' ');
}
