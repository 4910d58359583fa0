// Why a deadlocked execution is stuck: what every blocked thread waits for, who holds
// it, and the wait-for cycle when there is one ("T0 holds a (x.c:12), waits for b
// (x.c:13); T1 holds b (x.c:20), waits for a (x.c:21)").
import { isAttempt } from '../explore/dependence.js';
import type { ExecutionView } from '../explore/strategy.js';
import type { ThreadEnd } from '../addon/addon.js';
import { Op, OpFlag, ThreadState, hasFlag } from '../addon/ops.js';
import type { BugLocation } from './bug.js';

export interface DeadlockContext {
  execution: ExecutionView;
  /** every thread at the end */
  ends: ThreadEnd[];
  /** where each step and each thread's pending operation is in the source */
  stepLocation: (step: number) => BugLocation | undefined;
  endLocation: (thread: number) => BugLocation | undefined;
  name: (address: number) => string;
}

const acquiring = (op: number) => hasFlag(op, OpFlag.LOCK);
const releasing = (op: number) => hasFlag(op, OpFlag.UNLOCK);
/** a lock a thread can be stuck waiting for */
const lockLike = (op: number) => hasFlag(op, OpFlag.LOCK) && hasFlag(op, OpFlag.WAITS);
const conditionMutex = (value: number) => value - (value % 4);

/** per lock-like object: thread -> [how many times held, the step of the first acquisition] */
function holdings(execution: ExecutionView): Map<number, Map<number, [number, number]>> {
  const held = new Map<number, Map<number, [number, number]>>();
  const change = (object: number, thread: number, step: number, delta: number) => {
    const holders = held.get(object) ?? new Map<number, [number, number]>();
    const [count, since] = holders.get(thread) ?? [0, step];
    if (count + delta <= 0) holders.delete(thread);
    else holders.set(thread, [count + delta, since]);
    held.set(object, holders);
  };
  for (let step = 0; step < execution.steps; step++) {
    const op = execution.op[step]!;
    const thread = execution.thread[step]!;
    const object = execution.object[step]!;
    // a lock that waits is taken when it runs; an attempt records whether it took the lock
    const succeeded = !isAttempt(op) || execution.value[step] !== 0;
    if (acquiring(op) && succeeded) change(object, thread, step, 1);
    else if (releasing(op)) change(object, thread, step, -1);
    // a condition wait gives up one level of its mutex (a recursive one held twice stays held)
    else if (hasFlag(op, OpFlag.RELEASES_ARGUMENT)) change(conditionMutex(execution.value[step]!), thread, step, -1);
    else if (hasFlag(op, OpFlag.ACQUIRES_ARGUMENT)) change(conditionMutex(execution.value[step]!), thread, step, 1);
  }
  return held;
}

export function explainDeadlock(context: DeadlockContext): string {
  const { execution, ends, name } = context;
  const held = holdings(execution);
  const at = (location: BugLocation | undefined) => (location ? ` (${location.file}:${location.line})` : '');
  const heldBy = (thread: number) =>
    [...held.entries()].filter(([, holders]) => holders.has(thread))
      .map(([object, holders]) => `${name(object)}${at(context.stepLocation(holders.get(thread)![1]))}`);

  // who each blocked thread waits for, when one thread can release it
  const waitsFor = new Map<number, number[]>();
  const descriptions: string[] = [];
  ends.forEach((end, thread) => {
    if (end.state !== ThreadState.RUNNABLE) return;
    const where = at(context.endLocation(thread));
    let wanted: string;
    let holders: number[] = [];
    if (lockLike(end.op)) {
      holders = [...(held.get(end.object)?.keys() ?? [])];
      wanted = `${name(end.object)}${where}`;
      if (holders.includes(thread)) wanted += ', which it already holds itself (a non-recursive lock taken twice)';
      else if (holders.length) wanted += `, held by ${holders.map((t) => `T${t}`).join(', ')}`;
    } else if (end.op === Op.THREAD_JOIN) {
      holders = [end.object];
      wanted = `T${end.object} to end${where}`;
    } else if (end.op === Op.COND_WAKE) {
      const mutex = waitMutex(execution, thread);
      const levels = mutex === undefined ? undefined : held.get(mutex)?.get(thread)?.[0];
      wanted = levels === undefined
        ? `a signal on ${name(end.object)}${where}, which no thread will send`
        : `a signal on ${name(end.object)}${where}, still holding ${name(mutex!)}: a condition wait gives up one level of a recursive mutex, and T${thread} had taken it ${levels + 1} times`;
    }
    else if (end.op === Op.SEM_WAIT) wanted = `semaphore ${name(end.object)}${where}, whose value stays 0`;
    else if (end.op === Op.BARRIER_LEAVE) wanted = `the other threads at barrier ${name(end.object)}${where}`;
    else if (end.op === Op.ONCE) wanted = `the once routine of ${name(end.object)}${where} to finish`;
    else return;
    waitsFor.set(thread, holders.filter((t) => t !== thread));
    const holds = heldBy(thread);
    descriptions.push(`T${thread}${holds.length ? ` holds ${holds.join(', ')} and` : ''} waits for ${wanted}`);
  });

  const cycle = findCycle(waitsFor);
  const summary = cycle ? `wait-for cycle ${[...cycle, cycle[0]].map((t) => `T${t}`).join(' → ')}: ` : '';
  return `deadlock: ${summary}${descriptions.join('; ')}`;
}

/** the mutex of the thread's last condition wait */
function waitMutex(execution: ExecutionView, thread: number): number | undefined {
  for (let step = execution.steps - 1; step >= 0; step--)
    if (execution.thread[step] === thread && hasFlag(execution.op[step]!, OpFlag.RELEASES_ARGUMENT)) return conditionMutex(execution.value[step]!);
  return undefined;
}

function findCycle(edges: Map<number, number[]>): number[] | undefined {
  for (const start of edges.keys()) {
    const path: number[] = [];
    let current: number | undefined = start;
    while (current !== undefined && !path.includes(current)) {
      path.push(current);
      current = edges.get(current)?.[0];
    }
    if (current !== undefined) return path.slice(path.indexOf(current));
  }
  return undefined;
}
