// Runs a strategy over a harness, driving it past failing executions, and collects what
// every counted execution showed, bound by bound: its observable behaviour (a bug
// outcome, or the final state: the program's output with its lines sorted) and its
// happens-before class twice: by the dependence table (used only to count executions of a
// class already seen) and as the explorers judge it (coverageClass: the classes every
// strategy that promises them must run).
import { type BuildOptions, buildHarness } from '../../src/compile/compile.js';
import { accessOf, isCommutingUpdate, objectOf, secondObjectOf, stepsConflict, touchesRange } from '../../src/explore/dependence.js';
import { RaceFinder } from '../../src/explore/races.js';
import type { Shard } from '../../src/explore/shard.js';
import { createStrategy } from '../../src/explore/strategies.js';
import { type ExecutionView, liveView, viewRun } from '../../src/explore/strategy.js';
import type { NativeHarness } from '../../src/addon/addon.js';
import { borrowHarness, returnHarness } from '../../src/addon/harness-pool.js';
import { yieldEvery50Ms } from './event-loop.js';
import { Access, Op, OpFlag, Outcome, ThreadState, hasFlag, outcomeNames } from '../../src/addon/ops.js';

/**
 * A strategy that ends its search at its first failing execution in normal use (it has no
 * failureCounts) diverged after the oracle drove it past one: no user meets that run. A
 * failing run's trace ends early, so what a thread did right after its last step (a choice it
 * makes with no scheduling point) is not in it, and a schedule made from it may not fit.
 */
export class DivergencePastBug extends Error {}

/** What a strategy had seen once the iteration of one bound was done (cumulative). */
export interface Observed {
  executions: number;
  classes: Set<string>;
  /** executions whose class an earlier execution already had */
  repeats: number;
  /** the classes run, by the explorers' own happens-before (coverageClass) */
  coverage: Set<string>;
  /** the classes run, by what each memory access read and the order of the writes (readsFromClass) */
  readsFrom: Set<string>;
  /** runs the strategy abandoned as redundant (a wasted run each) */
  wasted: number;
  /** failing executions, named by outcome, thread, code offset and message */
  bugs: Set<string>;
  /** passing executions' output, lines sorted */
  finalStates: Set<string>;
  /** the strategy says nothing is left beyond this bound */
  complete: boolean;
  /** stopped at the execution limit: the sets are incomplete */
  truncated: boolean;
}

/** Everything seen (the fields of Observed: within the largest bound), and bound by bound. */
export interface Exploration extends Observed {
  /** false: the strategy ignores the bound (one unbounded pass, reported as bound 0) */
  bounded: boolean;
  /** index b: everything seen within bound b; shorter than maxBound + 1 when the strategy was done earlier */
  byBound: Observed[];
}

/** What the exploration had seen within `bound` (everything, when it was done earlier). */
export function within(exploration: Exploration, bound: number): Observed {
  return exploration.byBound[Math.min(bound, exploration.byBound.length - 1)]!;
}

// Async: the event loop gets a turn every ~50 ms (event-loop.ts).
/**
 * `classes`: fingerprint every counted execution's happens-before class (`classes`, `repeats`);
 * the soundness check leaves it out where nothing reads them (its quadratic cost was half an
 * oracle seed's time at four threads).
 */
export async function exploreAll(
  file: string, strategy: string, maxBound: number, mode: 'drf' | 'sc', limit = Infinity, maxSteps = 10_000, build: BuildOptions = {}, shard?: Shard, classes = true,
): Promise<Exploration> {
  const library = buildHarness(file, build).library;
  const harness = borrowHarness(library);
  try {
    return await explore(harness, strategy, maxBound, mode, limit, maxSteps, shard, classes);
  } finally {
    returnHarness(library, harness);
  }
}

async function explore(
  harness: NativeHarness, strategy: string, maxBound: number, mode: 'drf' | 'sc', limit: number, maxSteps: number, shard: Shard | undefined, classes: boolean,
): Promise<Exploration> {
  const trace = harness.trace();
  const explorer = createStrategy(strategy, { maxBound, ...(shard ? { shard } : {}) });
  const view = liveView(trace);
  const seen: Observed = {
    executions: 0, classes: new Set(), repeats: 0, coverage: new Set(), readsFrom: new Set(), wasted: 0, bugs: new Set(), finalStates: new Set(),
    complete: false, truncated: false,
  };
  const byBound: Observed[] = [];
  const snapshot = (complete: boolean) => byBound.push({
    ...seen, classes: new Set(seen.classes), coverage: new Set(seen.coverage), readsFrom: new Set(seen.readsFrom), bugs: new Set(seen.bugs), finalStates: new Set(seen.finalStates), complete,
  });
  const none = new Float64Array([0, 1]);
  const lastBound = explorer.bounded ? maxBound : 0;
  let failingObserved = false;
  for (let bound = 0; bound <= lastBound; bound++) {
    if (!explorer.beginBound(bound)) {
      // exhausted before this bound: the last view stands for every later bound
      if (byBound.length > 0) byBound[byBound.length - 1]!.complete = true;
      else snapshot(true);
      break;
    }
    for (let schedule = explorer.next(); schedule; schedule = explorer.next()) {
      await yieldEvery50Ms();
      const outcome = harness.run(
        0, schedule.decisions, schedule.length, maxSteps, mode === 'sc' ? 1 : 0, schedule.flags ?? 0, none, undefined,
        schedule.asleep, schedule.asleepFrom, schedule.planFrom,
      );
      if (outcome === Outcome.DIVERGENCE) {
        const refusal = explorer.divergence?.(harness.result().message);
        if (refusal) throw refusal;
        const message = `nondeterministic harness: ${harness.result().message}`;
        throw failingObserved && explorer.failureCounts === undefined ? new DivergencePastBug(message) : new Error(message);
      }
      if (outcome !== Outcome.OK && outcome !== Outcome.PRUNED) failingObserved = true;
      viewRun(view, trace.status[0]!, outcome);
      const behaviour = outcome === Outcome.OK ? sortedLines(harness.output()) : bugOutcome(harness);
      if (!explorer.observe(view)) {
        seen.wasted++;
        continue;
      }
      if (seen.executions === limit) {
        seen.truncated = true;
        snapshot(false);
        return { ...byBound[byBound.length - 1]!, bounded: explorer.bounded, byBound };
      }
      seen.executions++;
      if (classes) {
        const fingerprint = happensBeforeClass(view, !ORDERS_UPDATES.has(strategy));
        if (seen.classes.has(fingerprint)) seen.repeats++;
        seen.classes.add(fingerprint);
      }
      const kept = observableSteps(view);
      seen.coverage.add(coverageClass(view, kept));
      seen.readsFrom.add(readsFromClass(view, kept));
      (outcome === Outcome.OK ? seen.finalStates : seen.bugs).add(behaviour);
    }
    snapshot(bound === lastBound ? !explorer.bounded || !explorer.beyondMaxBound() : false);
  }
  return { ...byBound[byBound.length - 1]!, bounded: explorer.bounded, byBound };
}

/**
 * Strategies that order adds whose results nothing uses as any writes (sound, only less
 * reduced), and the graph read unlocks of a read-write lock too (each gives back a unit: a
 * read-modify-write of the lock): one execution per class as they count them.
 */
const ORDERS_UPDATES = new Set(['graph', 'hbcache']);

function sortedLines(output: string): string {
  return output.split('\n').filter((line) => line !== '').sort().join('\n');
}

/**
 * A failing execution, named by what the runtime reports: outcome, thread, code offset and
 * message; a deadlock or livelock (no message, and the thread that ran last is not part of
 * it) by where every unfinished thread was stuck.
 */
function bugOutcome(harness: NativeHarness): string {
  const result = harness.result();
  const name = outcomeNames[result.outcome];
  if (result.outcome !== Outcome.DEADLOCK && result.outcome !== Outcome.LIVELOCK) return `${name} T${result.thread}@${result.pc}: ${result.message}`;
  const stuck = result.threads.flatMap((thread, id) => (thread.state === ThreadState.RUNNABLE ? [`T${id}@${thread.pc}`] : []));
  return `${name}: ${stuck.join(' ')}`;
}

/**
 * Two executions are equivalent (same Mazurkiewicz trace) when they have the same steps
 * (named by thread and index in that thread; a data choice by its value too) and every pair
 * of conflicting steps, as the dependence table judges them (`ordersAsides`: with steps
 * around an aside conflicting with every other thread's, dependence.ts), comes in the same order.
 * stepsConflict judges every pair that may conflict: one that touches a range or conflicts
 * with everything (a free, main's return), or two that touch a common object; the pairs of
 * steps on disjoint objects are left out unasked (runs of hundreds of steps on each thread's
 * own data spent most of a test's time asking for every pair).
 */
export function happensBeforeClass(execution: ExecutionView, updatesCommute = true): string {
  const access: Access[] = [];
  const threads = threadNames(execution);
  const perThread = new Map<number, number>();
  const names: string[] = [];
  const facts: string[] = [];
  /** earlier steps that may conflict with any step, and those that touch each object */
  const wide: number[] = [];
  const touching = new Map<number, number[]>();
  /** the step whose candidates last included each step (each pair is judged once) */
  const judgedFor = new Int32Array(execution.steps).fill(-1);
  const judge = (i: number, j: number) => {
    if (judgedFor[i] === j || execution.thread[i] === execution.thread[j]) return;
    judgedFor[i] = j;
    if (stepsConflict(execution.op[i]!, execution.object[i]!, execution.value[i]!, access[i]!, execution.op[j]!, execution.object[j]!, execution.value[j]!, access[j]!))
      facts.push(`${names[i]}<${names[j]}`);
  };
  const touch = (object: number, j: number) => {
    const steps = touching.get(object);
    if (steps) steps.push(j);
    else touching.set(object, [j]);
  };
  for (let j = 0; j < execution.steps; j++) {
    const thread = execution.thread[j]!;
    const index = perThread.get(thread) ?? 0;
    perThread.set(thread, index + 1);
    const op = execution.op[j]!;
    const opAccess = accessOf(op);
    access[j] = (isCommutingUpdate(opAccess) || op === Op.RWLOCK_READ_UNLOCK) && !updatesCommute ? Access.WRITE : opAccess;
    names.push(`${threads[thread]}#${index}`);
    facts.push(`${threads[thread]}#${index}:${op}${hasFlag(op, OpFlag.DECISION) ? `=${execution.value[j]}` : ''}`);
    const first = objectOf(op, execution.object[j]!);
    const second = secondObjectOf(op, execution.value[j]!);
    if (access[j] === Access.GLOBAL || touchesRange(op)) {
      for (let i = 0; i < j; i++) judge(i, j);
      wide.push(j);
    } else {
      for (const i of wide) judge(i, j);
      for (const i of touching.get(first) ?? []) judge(i, j);
      if (second !== undefined) for (const i of touching.get(second) ?? []) judge(i, j);
    }
    touch(first, j);
    if (second !== undefined) touch(second, j);
  }
  return facts.sort().join(' ');
}

const coverageFinder = new RaceFinder();
/** the execution coverageFinder analysed last: a kept view, whose arrays observableSteps made and nothing writes again */
let analysed: ExecutionView | undefined;

/** How many first steps two executions share, as the race finder reads them (RaceFinder.find: the analysis of those is kept). */
function sharedPrefix(a: ExecutionView, b: ExecutionView): number {
  const steps = Math.min(a.steps, b.steps);
  let step = 0;
  while (step < steps && a.thread[step] === b.thread[step] && a.op[step] === b.op[step] && Object.is(a.object[step], b.object[step]) &&
    Object.is(a.value[step], b.value[step]) && a.aside[step] === b.aside[step]) step++;
  return step;
}

/**
 * An execution's class as the explorers judge it: its steps (named by thread and index in
 * that thread, with their ops and data choices) and, for each, the steps of every thread
 * that happen before it — the race finder's vector clocks, whose dependence is coarser than
 * the table's (a reader's unlock does not order another reader's lock). An explorer that
 * promises every class must run each of these that dfs runs: this checks its reversals,
 * backtrack points, sleep sets and bounds, where the final states check the dependence too.
 * Only observable steps count (observableSteps): not one more turn of a spin, nor a start
 * that is its thread's only step.
 */
export function coverageClass(execution: ExecutionView, kept = observableSteps(execution)): string {
  // the race finder keeps its analysis of the steps this execution shares with the one before (dfs: most of them)
  coverageFinder.find(kept, kept.steps, analysed === undefined ? 0 : sharedPrefix(analysed, kept), () => {});
  analysed = kept;
  const names = threadNames(kept);
  const width = coverageFinder.threadCount;
  // a thread without steps has only zeros in every clock
  const stepping = new Set(kept.thread.subarray(0, kept.steps));
  const order = Array.from({ length: width }, (_, t) => t).filter((t) => stepping.has(t)).sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
  const perThread: string[][] = Array.from({ length: width }, () => []);
  for (let step = 0; step < kept.steps; step++) {
    const op = kept.op[step]!;
    let clock = '';
    for (const t of order) clock += `${coverageFinder.clockOf(step, t)},`;
    perThread[kept.thread[step]!]!.push(`${op}${hasFlag(op, OpFlag.DECISION) ? `=${kept.value[step]}` : ''}@${clock}`);
  }
  return order.map((t) => `${names[t]}: ${perThread[t]!.join(' ')}`).join(' | ');
}

/**
 * Names of the execution's threads (by runtime id) that do not depend on the order threads
 * were created in: main is m, the k-th thread a thread creates is its name and .k. The
 * runtime numbers threads as they are created, so two threads that each create one get
 * other numbers in another order of their creates, though nothing else differs.
 */
export function threadNames(execution: ExecutionView): string[] {
  const names: string[] = ['m'];
  const created: number[] = [0];
  for (let step = 0; step < execution.steps; step++) {
    if (execution.op[step] !== Op.THREAD_CREATE) continue;
    const creator = execution.thread[step]!;
    const k = created[creator] ?? 0;
    created[creator] = k + 1;
    names[execution.object[step]!] = `${names[creator] ?? `#${creator}`}.${k}`;
  }
  return Array.from({ length: names.length }, (_, id) => names[id] ?? `#${id}`);
}

/**
 * Loads, stores, read-modify-writes and compare-exchanges, atomic or plain: the oracle's own
 * list, not the dependence table's. An add (or, and, xor) whose result the program drops
 * only updates: two of one kind in a row go either way.
 */
const memoryAccesses: ReadonlyMap<number, 'read' | 'write' | 'add' | 'or' | 'and' | 'xor'> = new Map([
  [Op.ATOMIC_LOAD, 'read'], [Op.PLAIN_READ, 'read'], [Op.ATOMIC_CAS_FAIL, 'read'],
  [Op.ATOMIC_STORE, 'write'], [Op.PLAIN_WRITE, 'write'], [Op.ATOMIC_RMW, 'write'], [Op.ATOMIC_CAS, 'write'],
  [Op.ATOMIC_ADD_UNUSED, 'add'], [Op.ATOMIC_OR_UNUSED, 'or'], [Op.ATOMIC_AND_UNUSED, 'and'], [Op.ATOMIC_XOR_UNUSED, 'xor'],
]);

/**
 * An execution's class as what its memory accesses saw, computed without the dependence
 * table or the race finder: for every read (and every read-modify-write, which reads
 * first) the write it read from — the last one to its location before it, or the initial
 * value — and for every location the order of its writes. Updates whose result the program
 * drops (adds, ors, ands, xors) read nothing it sees, and the order within a run of one kind
 * changes nothing: a read names the last other write and the runs since, each as a set, and
 * the order of the writes holds each run as a set. Steps are named by thread and index in that thread, data
 * choices by their values too, so that equal names mean the same step. Only observable
 * steps count, as in coverageClass.
 */
export function readsFromClass(execution: ExecutionView, kept = observableSteps(execution)): string {
  const threads = threadNames(kept);
  const perThread = new Map<number, number>();
  const lastWrite = new Map<number, string>();
  /** per location, the runs of updates since its last write: each of one kind */
  const runsSince = new Map<number, { kind: string; steps: string[] }[]>();
  const writes = new Map<number, string[]>();
  const facts: string[] = [];
  const runsAsSets = (location: number) => (runsSince.get(location) ?? []).map((run) => `${run.kind}{${[...run.steps].sort().join(',')}}`).join('');
  for (let step = 0; step < kept.steps; step++) {
    const thread = kept.thread[step]!;
    const index = perThread.get(thread) ?? 0;
    perThread.set(thread, index + 1);
    const op = kept.op[step]!;
    const name = `${threads[thread]}#${index}`;
    if (op === Op.CHOOSE) facts.push(`${name}=${kept.value[step]}`);
    const access = memoryAccesses.get(op);
    if (access === undefined) continue;
    const location = kept.object[step]!;
    const order = writes.get(location) ?? [];
    writes.set(location, order);
    if (access !== 'read' && access !== 'write') {
      const runs = runsSince.get(location) ?? [];
      runsSince.set(location, runs);
      const last = runs[runs.length - 1];
      if (last?.kind === access) last.steps.push(name);
      else runs.push({ kind: access, steps: [name] });
      continue;
    }
    facts.push(`${name}<-${lastWrite.get(location) ?? 'init'}${runsAsSets(location)}`);
    if (access === 'read') continue;
    if (runsSince.has(location)) order.push(runsAsSets(location));
    runsSince.delete(location);
    lastWrite.set(location, name);
    order.push(name);
  }
  for (const [location, order] of writes) facts.push(`@${location}:${[...order, runsAsSets(location)].join(',')}`);
  return facts.sort().join(' ');
}

/**
 * The steps whose presence or order can change what an execution shows. Left out: a yield,
 * which reads and writes nothing; a read, or a read-modify-write that wrote back what it read
 * (an exchange of the 1 already there), that repeats its thread's previous step but yields
 * (same op, object and value: one more turn of a spin loop, spin.c's definition), since the
 * explorers run a spin for as many turns as it takes to change something, by design, where
 * dfs runs every count; and a start that is its thread's only step (it blocked at once, or
 * main ended the process). Such a start depends on nothing
 * but the create, and the thread-local code it runs is the same whenever the thread starts,
 * so the run shows what the same run without it shows.
 */
function observableSteps(execution: ExecutionView): ExecutionView {
  const previous = new Map<number, number>();
  const stepsOf = new Map<number, number>();
  const notRepeated: number[] = [];
  for (let step = 0; step < execution.steps; step++) {
    if (execution.op[step] === Op.YIELD) continue;
    const thread = execution.thread[step]!;
    stepsOf.set(thread, (stepsOf.get(thread) ?? 0) + 1);
    const before = previous.get(thread);
    previous.set(thread, step);
    const leavesValue = accessOf(execution.op[step]!) === Access.READ ||
      ((execution.op[step] === Op.ATOMIC_RMW || isCommutingUpdate(accessOf(execution.op[step]!))) && execution.written[step] === execution.bits[step]);
    const repeated = before !== undefined && leavesValue && execution.op[before] === execution.op[step] &&
      execution.object[before] === execution.object[step] && execution.value[before] === execution.value[step];
    if (!repeated) notRepeated.push(step);
  }
  const loneStart = (step: number) => execution.op[step] === Op.THREAD_START && stepsOf.get(execution.thread[step]!) === 1;
  const keep = notRepeated.filter((step) => !loneStart(step));
  const pick = <T extends Uint8Array | Float64Array | BigUint64Array>(from: T, make: (length: number) => T): T => {
    const to = make(keep.length);
    keep.forEach((step, i) => { to[i] = from[step]!; });
    return to;
  };
  return {
    ...execution,
    steps: keep.length,
    thread: pick(execution.thread, (n) => new Uint8Array(n)),
    op: pick(execution.op, (n) => new Uint8Array(n)),
    object: pick(execution.object, (n) => new Float64Array(n)),
    value: pick(execution.value, (n) => new Float64Array(n)),
    bits: pick(execution.bits, (n) => new BigUint64Array(n)),
    size: pick(execution.size, (n) => new Uint8Array(n)),
    written: pick(execution.written, (n) => new BigUint64Array(n)),
    expected: pick(execution.expected, (n) => new BigUint64Array(n)),
    aside: new Uint8Array(keep.length),
    pc: new Uint32Array(keep.length),
    rmw: new Uint8Array(keep.length),
  };
}
