// Counterexample simplification: among the executions with the same happens-before as
// the failing one, find one with fewer thread switches, so that the trace reads as a few
// blocks. Greedy: keep the running thread going while its next step's dependencies are
// done. The candidate is replayed and kept only if it fails in the same way with no more
// preemptions.
import { accessOf, stepsConflict } from '../explore/dependence.js';
import { type FailingExecution, copyFailure } from '../explore/driver.js';
import { type ExecutionView, decisionAt } from '../explore/strategy.js';
import type { NativeHarness } from '../native/addon.js';
import { Op } from '../native/ops.js';

const MAX_STEPS = 2000; // longer traces are shown as found

export interface ReplayContext {
  harness: NativeHarness;
  test: number;
  replay(decisions: Uint16Array): number; // runs the harness, returns the outcome
}

export function simplify(failure: FailingExecution, context: ReplayContext): FailingExecution {
  const { execution } = failure;
  if (execution.steps > MAX_STEPS || execution.steps < 3) return failure;
  const order = reorder(execution);
  if (!order || switches(execution, order) >= switches(execution, identity(execution.steps))) return failure;
  const decisions = Uint16Array.from(order, (step) => decisionAt(execution, step));
  const outcome = context.replay(decisions);
  if (outcome !== failure.outcome) return failure;
  const candidate = copyFailure(context.harness, { steps: context.harness.trace().status[0]!, outcome });
  const same = candidate.result.message === failure.result.message && candidate.preemptions <= failure.preemptions;
  return same ? candidate : failure;
}

const identity = (n: number) => Array.from({ length: n }, (_, i) => i);

function switches(execution: ExecutionView, order: number[]): number {
  let count = 0;
  for (let i = 1; i < order.length; i++) if (execution.thread[order[i]!] !== execution.thread[order[i - 1]!]) count++;
  return count;
}

/** A linearisation of the same happens-before with the failing step last, or undefined. */
function reorder(execution: ExecutionView): number[] | undefined {
  const n = execution.steps;
  const last = n - 1;
  // the steps each step must follow: its thread's previous step and conflicting ones
  const after: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) {
    const opI = execution.op[i]!;
    for (let j = 0; j < i; j++) {
      const opJ = execution.op[j]!;
      const sameThread = execution.thread[i] === execution.thread[j];
      const conflicting = stepsConflict(
        opJ, execution.object[j]!, execution.value[j]!, accessOf(opJ), opI, execution.object[i]!, execution.value[i]!, accessOf(opI),
      );
      if (sameThread || conflicting || opI === Op.CHOOSE) after[i]!.push(j);
    }
  }
  const done = new Uint8Array(n);
  const order: number[] = [];
  let current = execution.thread[0]!;
  while (order.length < n) {
    let next = -1;
    for (let i = 0; i < n; i++) {
      if (done[i] || (i === last && order.length < n - 1) || !after[i]!.every((j) => done[j])) continue;
      if (execution.thread[i] === current) {
        next = i;
        break;
      }
      if (next < 0) next = i;
    }
    if (next < 0) return undefined;
    done[next] = 1;
    order.push(next);
    current = execution.thread[next]!;
  }
  return order;
}
