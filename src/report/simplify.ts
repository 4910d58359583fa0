// Counterexample simplification: among the executions with the same happens-before as
// the failing one, show one with the fewest preemptions (FewestPreemptions), then one
// with fewer thread switches, so that the trace reads as a few blocks (greedy: keep the
// running thread going while its next step's dependencies are done). Each candidate is
// replayed and kept only if it fails in the same way with no more preemptions (and, when
// the bound counted delays, no more delays: the bug was found at its delay bound). The one
// shown is replayed once more keeping its plain accesses (drf mode: they are no steps), so
// that every value the threads read and wrote can be shown, and its shared stacks' frames,
// so that their locals are named.
import { accessOf, stepsConflict } from '../explore/dependence.js';
import { FewestPreemptions } from '../explore/fewest-preemptions.js';
import { type Exploration, type FailingExecution, UnexplorableHarnessError, spentBy } from '../explore/driver.js';
import { type BoundKind, type ExecutionView, decisionAt } from '../explore/strategy.js';
import { type NativeHarness, RunFlags } from '../addon/addon.js';
import { Op } from '../addon/ops.js';

const MAX_STEPS = 2000; // longer traces are shown as found

export interface ReplayContext {
  harness: NativeHarness;
  test: number;
  /** what the exploration's bound counted */
  bound: BoundKind;
  /** replays the decisions through the driver (with these run flags added) */
  replay(decisions: Uint16Array, flags?: number): Promise<Exploration>;
}

export async function simplify(failure: FailingExecution, context: ReplayContext): Promise<FailingExecution> {
  return withAccesses(await simplest(failure, context), context);
}

async function simplest(failure: FailingExecution, context: ReplayContext): Promise<FailingExecution> {
  if (failure.execution.steps > MAX_STEPS || failure.execution.steps < 3) return failure;
  const cheapest = await tryOrder(failure, cheapestOrder(failure), context);
  const { execution } = cheapest;
  const order = reorder(execution);
  if (!order || switches(execution, order) >= switches(execution, identity(execution.steps))) return cheapest;
  return tryOrder(cheapest, order, context);
}

/**
 * The same execution once more, keeping its plain accesses (empty in sc mode, where they
 * are steps) and the frames of its shared stacks (to name their locals).
 */
async function withAccesses(failure: FailingExecution, context: ReplayContext): Promise<FailingExecution> {
  const replayed = await failureOf(context, Uint16Array.from(failure.decisions), RunFlags.LOG_ACCESSES);
  const same = replayed?.outcome === failure.outcome && replayed.execution.steps === failure.execution.steps;
  return same ? { ...failure, result: { ...failure.result, stackFrames: replayed.result.stackFrames }, accesses: context.harness.accessLog() } : failure;
}

/** The failing execution replayed along `order`, if it fails the same way with no more preemptions (nor delays, when they are the bound). */
async function tryOrder(failure: FailingExecution, order: number[] | undefined, context: ReplayContext): Promise<FailingExecution> {
  if (!order) return failure;
  const { execution } = failure;
  const candidate = await failureOf(context, Uint16Array.from(order, (step) => decisionAt(execution, step)));
  if (candidate?.outcome !== failure.outcome) return failure;
  const same = candidate.result.message === failure.result.message && candidate.preemptions <= failure.preemptions &&
    spentBy(candidate, context.bound) <= spentBy(failure, context.bound);
  return same ? candidate : failure;
}

/** How replaying `decisions` fails, if it does (a run the harness cannot take is no candidate). */
async function failureOf(context: ReplayContext, decisions: Uint16Array, flags?: number): Promise<FailingExecution | undefined> {
  try {
    return (await context.replay(decisions, flags)).failure;
  } catch (error) {
    if (error instanceof UnexplorableHarnessError) return undefined;
    throw error;
  }
}

/** A schedule of the failing execution's happens-before with fewer preemptions, the failing step last. */
function cheapestOrder(failure: FailingExecution): number[] | undefined {
  const { execution } = failure;
  const fewest = new FewestPreemptions();
  fewest.begin();
  fewest.pushSteps(execution, execution.steps);
  for (let bound = 0; bound < failure.preemptions; bound++) {
    if (!fewest.fitsWithin(bound, execution.steps - 1)) continue;
    return fewest.order(); // undefined when the search gave up: no guess is replayed
  }
  return undefined;
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
