// A failing execution turned into what the user reads: the kind of bug, its message and
// location, every step with its source line and value, and what each thread was doing
// at the end. A Bug is a union keyed on its kind; each kind has one describer.
import type { FailingExecution } from '../explore/driver.js';
import { type BoundKind, isPreemption } from '../explore/strategy.js';
import { isCommutingUpdate } from '../explore/dependence.js';
import type { LoggedAccess, RunResult } from '../addon/addon.js';
import {
  Access, BEFORE_ANY_STEP, MemoryOrder, ObjectKind, Op, OpFlag, Outcome, ThreadState, accessOf, hasFlag, memoryOrderNames, objectKindOf, opNames, outcomeNames,
  pcIsFunctionStart, rmwFunctionNames,
} from '../addon/ops.js';
import { type FlowEvent, failingReads, inTraceOrder, isStep, leadingToFailure } from './data-flow.js';
import { explainDeadlock } from './deadlock.js';
import type { DebugData } from './debug-data.js';
import { type CodeLocation, sourceLine } from './locations.js';
import { AddressNamer, type HeapBlock, type NamedAddress } from './names.js';
import { encodeReplay } from './replay.js';
import { type ShownValue, showValue } from './values.js';
import { counted, withThousands } from '../numbers.js';

export interface BugLocation {
  file: string;
  line: number;
}

export interface BugStep {
  step: number;
  thread: number;
  op: string;
  /** an atomic read-modify-write's function: "exchange", "fetch_add", …; "cas" for a compare-exchange */
  function?: string;
  /** what the step acted on: a variable (down to field and element), lock or thread */
  target?: string;
  /** by the object's type: a number where exact, else the decimal digits (64-bit values beyond 2^53) */
  value?: number | string;
  /** the value as shown: "-5", "-2.5", "0x7f00…", "GREEN", "true", "-1 (0xffffffff)" */
  valueText?: string;
  /** bytes of memory the value was read from or written to */
  size?: number;
  /** an atomic read-modify-write or compare-exchange: what it wrote (a failed one: would have written), as value and valueText are */
  written?: number | string;
  writtenText?: string;
  /** a compare-exchange: the value it expected, and whether it found it (then it wrote) */
  expected?: number | string;
  expectedText?: string;
  succeeded?: boolean;
  /** an atomic step's memory order, when it is not seq_cst */
  order?: string;
  preemption: boolean;
  location?: BugLocation;
  source?: string;
  /** the step leads to the failure (data flow into the failing check, a racing or freed access): a trace never folds it away */
  leadsToFailure?: true;
}

export interface ThreadAtEnd {
  thread: number;
  state: 'finished' | 'blocked' | 'running';
  /** what it was about to do, for the threads that had not finished */
  waitingFor?: string;
  location?: BugLocation;
  source?: string;
}

export interface RaceAccess {
  thread: number;
  /** a free writes the whole block; a function's return ends its frame; a thread's end, its thread-local variables */
  access: 'read' | 'write' | 'free' | 'return' | 'end';
  /** an atomic access (a step of its own; the other access was plain: two atomic ones never race) */
  atomic?: true;
  /** the scheduling step after which it ran, in its thread (plain accesses are no steps in drf mode); none: before its thread's first step */
  afterStep?: number;
  location?: BugLocation;
  source?: string;
}

/** drf mode: a plain access to a global or the heap, recorded by replaying the failing execution (plain accesses are no steps there) */
export interface PlainAccess {
  thread: number;
  /** the step after which it ran, in its thread; none: before the execution's first step */
  afterStep?: number;
  access: 'read' | 'write';
  target: string;
  value: number | string;
  valueText: string;
  size: number;
  location?: BugLocation;
  source?: string;
  /** it leads to the failure: a trace never folds it away */
  leadsToFailure?: true;
  /** it is the earlier access of the data race */
  race?: true;
}

/** A heap block the counterexample names, with where it was allocated and freed. */
export interface HeapObject {
  name: string;
  size: number;
  allocated?: BugLocation;
  freed?: BugLocation;
  /** the thread that freed it */
  freedBy?: number;
}

interface BugBase {
  message: string;
  preemptions: number;
  /** deviations from round robin: only when the bound counted delays */
  delays?: number;
  schedule: string;
  location?: BugLocation;
  thread: number;
  steps: BugStep[];
  threads: ThreadAtEnd[];
  output: string;
  /**
   * the threads that take part in the failure: the failing thread, both racing threads, the
   * threads unfinished at a deadlock or livelock, and every thread that touched a variable,
   * lock or condition one of those touched (steps, and in drf mode the access log), transitively
   */
  threadsTakingPart: number[];
  /** drf mode: the plain accesses of the execution to globals and the heap, with their values */
  accesses?: PlainAccess[];
  /** the heap blocks the counterexample names (node#1, …), in allocation order */
  heapObjects?: HeapObject[];
  /** after a data race: what the race then breaks, when exploration found it */
  consequence?: Bug;
}

/** a data race: the variable and both accesses, earlier first; `freed`: one of them is a free of the variable's block */
export interface RaceBug extends BugBase {
  kind: 'race';
  race: { variable: string; accesses: [RaceAccess, RaceAccess]; freed?: string };
}

export interface DeadlockBug extends BugBase { kind: 'deadlock' }
export interface AssertionBug extends BugBase { kind: 'assertion' }
export interface CrashBug extends BugBase { kind: 'crash' }
export interface LivelockBug extends BugBase { kind: 'livelock' }
export interface StepLimitBug extends BugBase { kind: 'step-limit' }
export interface HangBug extends BugBase { kind: 'hang' }
export interface MemoryBug extends BugBase { kind: 'memory' }
export interface LeakBug extends BugBase { kind: 'leak' }
export interface MisuseBug extends BugBase { kind: 'misuse' }
export interface ExitBug extends BugBase { kind: 'exit' }
export interface DivergenceBug extends BugBase { kind: 'divergence' }

export type Bug =
  | RaceBug | DeadlockBug | AssertionBug | CrashBug | LivelockBug | StepLimitBug | HangBug | MemoryBug | LeakBug | MisuseBug
  | ExitBug | DivergenceBug;
export type BugKind = Bug['kind'];

/** What every describer gets: the failure, its steps and threads, names and locations. */
interface Described {
  failure: FailingExecution;
  steps: BugStep[];
  threads: ThreadAtEnd[];
  namer: AddressNamer;
  heapBlock?: HeapBlock;
  at: (offset: number) => { location?: BugLocation; source?: string };
  /** code offsets of the fault and of the race's earlier access */
  resultOffset: number;
  raceOffset: number;
}

type Details<K extends BugKind> = Omit<Extract<Bug, { kind: K }>, keyof BugBase | 'kind'> & { message: string };

const describers: { [K in BugKind]: (described: Described) => Details<K> } = {
  race: describeRace,
  deadlock: ({ failure, steps, threads, namer }) => ({
    message: explainDeadlock({
      execution: failure.execution, ends: failure.result.threads, name: (address) => namer.name(address),
      stepLocation: (step) => steps[step]?.location,
      endLocation: (thread) => threads[thread]?.location,
    }),
  }),
  memory: ({ failure, heapBlock, at, namer }) => ({ message: memoryMessage(failure.result, heapBlock, at, namer) }),
  leak: ({ failure, heapBlock }) => ({
    message: `${failure.result.message}${heapBlock ? `; the first, ${heapBlock.size} bytes, allocated${heapBlock.allocated ? ` at ${fileLine(heapBlock.allocated)}` : ''}` : ''}`,
  }),
  livelock: ({ failure, steps, threads }) => ({ message: livelockMessage(failure.result, steps, threads) }),
  'step-limit': ({ failure, threads }) => ({ message: stepLimitMessage(failure.result.steps, threads) }),
  assertion: runtimeMessage,
  crash: runtimeMessage,
  hang: runtimeMessage,
  misuse: runtimeMessage,
  exit: runtimeMessage,
  divergence: runtimeMessage,
};

/** read-modify-writes: those whose result the harness uses, and those whose result it drops */
const rmwOps: readonly number[] = [Op.ATOMIC_RMW, Op.ATOMIC_ADD_UNUSED, Op.ATOMIC_OR_UNUSED, Op.ATOMIC_AND_UNUSED, Op.ATOMIC_XOR_UNUSED];
const atomicOps = new Set<number>([Op.ATOMIC_LOAD, Op.ATOMIC_STORE, ...rmwOps, Op.ATOMIC_CAS, Op.ATOMIC_CAS_FAIL]);
/** atomics that read before they write: what they write follows from what they read */
const writingAtomicOps = new Set<number>([...rmwOps, Op.ATOMIC_CAS, Op.ATOMIC_CAS_FAIL]);

/** ops on the runtime's own state (the virtual clock a yield or sleep reads, a read of the time, the random generator): no object of the harness to name */
const onRuntimeState = new Set<number>([Op.YIELD, Op.CLOCK, Op.RANDOM]);
const namesObject = (op: number) => !onRuntimeState.has(op) && (objectKindOf(op) === ObjectKind.ADDRESS || objectKindOf(op) === ObjectKind.BLOCK);
/** create and join name the other thread (a thread's start and exit are its own) */
const namesThread = (op: number) => objectKindOf(op) === ObjectKind.THREAD && !hasFlag(op, OpFlag.STARTS_THREAD | OpFlag.ENDS_THREAD);

/** Return addresses point after the call: look up the call itself. */
function lookupOffset(pc: number, op: number): number {
  return pc === 0 || pcIsFunctionStart(op) ? pc : pc - 1;
}

/** `bound`: what the exploration counted (with delays, the bug says how many it needed) */
export function describeBug(
  failure: FailingExecution, debug: DebugData, test: string, mode: 'drf' | 'sc', visible: readonly string[] = [], build?: string,
  bound: BoundKind = 'preemption',
): Bug {
  const { execution, result } = failure;
  // a fault's or the watchdog's pc is the interrupted instruction, and a thread's end its start routine, not a return address
  const exact = failure.outcome === Outcome.CRASH || failure.outcome === Outcome.HANG || (failure.outcome === Outcome.RACE && result.raceThreadEnd);
  const resultOffset = result.pc === 0 ? 0 : exact ? result.pc : result.pc - 1;
  const raceOffset = failure.outcome === Outcome.RACE && result.racePc ? result.racePc - 1 : 0;
  const logged = failure.accesses ?? [];
  const at = (offset: number) => located(offset > 0 ? debug.locate(offset) : undefined);
  const heapBlock = describedBlock(result, at);
  const namer = new AddressNamer(debug, result.libraryBase, { base: result.heapBase, size: result.heapSize }, heapBlocks(failure, at), result.stackFrames,
    { base: result.tlsBase, blockSize: result.tlsBlockSize });

  // a block op (a free) touches the whole block: its value is the block's size
  const describeTarget = (op: number, object: number, size = 0, value = 0): NamedAddress | undefined =>
    namesObject(op) ? namer.locate(object, objectKindOf(op) === ObjectKind.BLOCK ? value : size) : namesThread(op) ? { name: `T${object}` } : undefined;
  const pointee = (address: number) => {
    const name = namer.name(address, Number.POSITIVE_INFINITY); // the whole object there, not its first field
    return name.startsWith('0x') || name.startsWith('heap+') ? undefined : name;
  };

  // typed pointers to heap blocks say what the blocks hold (twice: a block reached through another)
  for (let pass = 0; pass < 2; pass++) {
    for (let step = 0; step < execution.steps; step++) {
      const size = failure.valueSizes[step]!;
      if (size === 8 && namesObject(execution.op[step]!))
        for (const bits of writingAtomicOps.has(execution.op[step]!) ? [failure.valueBits[step]!, failure.atomics.written[step]!] : [failure.valueBits[step]!])
          namer.notePointer(Number(bits), namer.locate(execution.object[step]!, size).type);
    }
    for (const access of logged) if (access.size === 8) namer.notePointer(Number(access.bits), namer.locate(access.address, 8).type);
  }

  const steps: BugStep[] = [];
  for (let step = 0; step < execution.steps; step++) {
    const op = execution.op[step]!;
    const thread = execution.thread[step]!;
    const size = failure.valueSizes[step]!;
    const entry: BugStep = {
      step, thread, op: opNames[op] ?? `op${op}`,
      preemption: op !== Op.CHOOSE && step > 0 && isPreemption(execution, step, thread),
      ...at(lookupOffset(tracePc(failure, step), op)),
    };
    const target = describeTarget(op, execution.object[step]!, size, execution.value[step]!);
    if (target !== undefined) entry.target = target.name;
    if (op === Op.YIELD || op === Op.CLOCK) {
      // a sleep's duration, the time read: microseconds of the virtual clock (a plain yield has none)
      const microseconds = execution.value[step]!;
      if (op === Op.YIELD && microseconds > 0) entry.op = 'sleep';
      if (op === Op.CLOCK || microseconds > 0) {
        entry.value = microseconds;
        entry.valueText = `${withThousands(microseconds)} µs`;
      }
    } else if (hasFlag(op, OpFlag.VALUE)) {
      const shown = size > 0
        ? showValue(failure.valueBits[step]!, size, target?.type, namer.info, pointee)
        : showValue(BigInt(execution.value[step]!), 0, undefined, undefined);
      entry.value = shown.json;
      entry.valueText = shown.text;
      if (size > 0) entry.size = size;
    }
    if (atomicOps.has(op)) Object.assign(entry, atomicDetail(failure, step, (bits) => showValue(bits, size, target?.type, namer.info, pointee)));
    steps.push(entry);
  }

  const threads: ThreadAtEnd[] = result.threads.map((end, thread) => {
    if (end.state === ThreadState.FINISHED) return { thread, state: 'finished' };
    const target = describeTarget(end.op, end.object);
    return {
      thread,
      state: hasFlag(end.op, OpFlag.WAITS) ? 'blocked' : 'running',
      waitingFor: `${opNames[end.op] ?? 'op'}${target ? ` ${target.name}` : ''}`,
      ...at(lookupOffset(end.pc, end.op)),
    };
  });

  const accesses = logged.map((access): PlainAccess => {
    const target = namer.locate(access.address, access.size);
    const value = showValue(access.bits, access.size, target.type, namer.info, pointee);
    return {
      thread: access.thread, ...(access.step === BEFORE_ANY_STEP ? {} : { afterStep: access.step }), access: access.write ? 'write' : 'read', target: target.name,
      value: value.json, valueText: value.text, size: access.size, ...at(access.pc - 1),
    };
  });

  const kind = (outcomeNames[failure.outcome] ?? 'crash') as BugKind;
  const touched = new Map<number, Set<string>>();
  const touch = (thread: number, object: string) => touched.set(thread, (touched.get(thread) ?? new Set()).add(object));
  for (let step = 0; step < execution.steps; step++)
    if (namesObject(execution.op[step]!)) touch(execution.thread[step]!, steps[step]!.target!);
  for (const access of accesses) touch(access.thread, access.target);
  const involved = [result.thread, ...(kind === 'race' ? [result.raceThread] : [])];
  if (kind !== 'race' && kind !== 'assertion') for (const end of threads) if (end.state !== 'finished') involved.push(end.thread);
  const described: Described = { failure, steps, threads, namer, at, resultOffset, raceOffset, ...(heapBlock ? { heapBlock } : {}) };
  const details = (describers[kind] as (described: Described) => Details<BugKind>)(described);
  if (kind === 'race') markRacingAccess(logged, accesses, result);
  markLeadingRows(kind, result.thread, execution, steps, accesses, { ...details, ...(heapBlock ? { freedBlock: namer.name(heapBlock.address, heapBlock.size) } : {}) });
  const assertionLocation = result.file && result.line ? { file: result.file, line: result.line } : undefined;
  const location = assertionLocation ?? at(resultOffset).location ?? lastLocation(steps);
  return {
    kind,
    ...details,
    preemptions: failure.preemptions,
    ...(bound === 'delay' ? { delays: failure.delays } : {}),
    schedule: encodeReplay({ test, mode, decisions: failure.decisions, visible: [...visible], ...(build ? { build } : {}) }),
    ...(location ? { location } : {}),
    thread: result.thread,
    steps,
    threads,
    output: failure.output,
    threadsTakingPart: takingPart(involved.filter((thread) => thread >= 0), touched, threads.length),
    ...(accesses.length ? { accesses } : {}),
    ...heapObjectsOf(namer, execution, steps),
  } as Bug;
}

/** The involved threads and, transitively, every thread that touched an object one of them touched; all when none is involved. */
function takingPart(involved: number[], touched: Map<number, Set<string>>, threadCount: number): number[] {
  if (involved.length === 0) return Array.from({ length: threadCount }, (_, thread) => thread);
  const taking = new Set(involved);
  for (let grew = true; grew; ) {
    grew = false;
    const objects = new Set([...taking].flatMap((thread) => [...(touched.get(thread) ?? [])]));
    for (const [thread, own] of touched) {
      if (taking.has(thread) || ![...own].some((object) => objects.has(object))) continue;
      taking.add(thread);
      grew = true;
    }
  }
  return [...taking].sort((a, b) => a - b);
}

function describeRace({ failure, namer, at, resultOffset, raceOffset }: Described): Details<'race'> {
  const { result, execution } = failure;
  const last = execution.steps - 1;
  // a free is a step that writes its whole block: the race is with the free when that step is one
  const frees = (step: number) =>
    step >= 0 && execution.op[step] === Op.FREE && result.raceAddress >= execution.object[step]! &&
    result.raceAddress < execution.object[step]! + Math.max(execution.value[step]!, 1);
  const earlierFrees = result.raceEarlierWrite && frees(result.raceStep);
  const laterFrees = result.raceWrite && execution.thread[last] === result.thread && frees(last);
  const freeStep = earlierFrees ? result.raceStep : laterFrees ? last : -1;
  const race: RaceBug['race'] = {
    variable: namer.name(result.raceAddress),
    accesses: [
      {
        thread: result.raceThread, access: earlierFrees ? 'free' : result.raceEarlierWrite ? 'write' : 'read',
        ...(result.raceEarlierAtomic ? { atomic: true } : {}), ...(result.raceStep >= 0 ? { afterStep: result.raceStep } : {}), ...at(raceOffset),
      },
      // the failing thread's access ran after the last step: it was running since (an atomic one is that step)
      {
        thread: result.thread, access: laterFrees ? 'free' : result.raceReturn ? 'return' : result.raceThreadEnd ? 'end' : result.raceWrite ? 'write' : 'read', ...(result.raceAtomic ? { atomic: true } : {}),
        afterStep: last, ...at(resultOffset),
      },
    ],
    ...(freeStep >= 0 ? { freed: namer.name(execution.object[freeStep]!, execution.value[freeStep]!) } : {}),
  };
  return { message: raceMessage(race), race };
}

/** The heap block the runtime described with the failure (a memory bug's, a race's). */
function describedBlock(result: RunResult, at: Described['at']): HeapBlock | undefined {
  return result.blockAddress ? heapBlock(result.blockAddress, result.blockSize, result.allocPc, at) : undefined;
}

function heapBlocks(failure: FailingExecution, at: Described['at']): HeapBlock[] {
  const blocks: HeapBlock[] = [];
  const triples = failure.heapBlocks;
  for (let i = 0; i + 2 < triples.length; i += 3) blocks.push(heapBlock(triples[i]!, triples[i + 1]!, triples[i + 2]!, at));
  return blocks;
}

/** a block, with where it was allocated */
function heapBlock(address: number, size: number, allocPc: number, at: Described['at']): HeapBlock {
  const allocated = at(allocPc - 1).location;
  return { address, size, ...(allocated ? { allocated } : {}) };
}

/**
 * Livelock: the threads that go round a loop (not those blocked waiting for them) and its
 * lines. The runtime says why when it stopped a spin no thread was left to end (spin.c);
 * otherwise the step bound found the last steps repeating.
 */
function livelockMessage(result: RunResult, steps: BugStep[], threads: ThreadAtEnd[]): string {
  const running = threads.filter((t) => t.state === 'running');
  const loops = (running.length > 0 ? running : threads.filter((t) => t.state !== 'finished')).map((thread) => {
    const recent = steps.filter((step) => step.thread === thread.thread && step.location).slice(-50);
    const files = new Set(recent.map((step) => step.location!.file));
    if (recent.length === 0 || files.size !== 1) return `T${thread.thread}`;
    // the loop's lines come round again; a line passed once led into it
    const all = recent.map((step) => step.location!.line);
    const again = all.filter((line, index) => all.indexOf(line) !== index);
    const lines = again.length > 0 ? again : all;
    const [low, high] = [Math.min(...lines), Math.max(...lines)];
    return `T${thread.thread} loops in ${[...files][0]}:${low}${high > low ? `-${high}` : ''}`;
  });
  if (result.message) return `livelock: ${loops.join('; ')}, and ${result.message}`;
  return `livelock: no progress after ${counted(result.steps, 'step')} (maxSteps): ${loops.join('; ')}`;
}

/** The step limit: the execution still changed state, so no loop is named; what each thread was doing. */
function stepLimitMessage(total: number, threads: ThreadAtEnd[]): string {
  const doing = threads.filter((t) => t.state !== 'finished').map((thread) =>
    `T${thread.thread} ${thread.state === 'blocked' ? 'waits at' : 'is at'} ${thread.waitingFor}${thread.location ? ` (${thread.location.file}:${thread.location.line})` : ''}`);
  return `step limit reached (maxSteps = ${withThousands(total)}): ${doing.join('; ')}`;
}

function memoryMessage(result: RunResult, block: HeapBlock | undefined, at: Described['at'], namer: AddressNamer): string {
  // a heap address differs from process to process: name the cell (allocation site and offset) instead
  const message = block
    ? result.message.replace(/0x[0-9a-f]+/g, (hex) => {
        const address = Number.parseInt(hex, 16);
        if (address >= block.address && address < block.address + Math.max(block.size, 1)) return namer.name(address);
        const offset = address - block.address; // out of bounds: where, from the block's start
        return Math.abs(offset) <= 1 << 20 ? `${namer.label(block)}${offset < 0 ? '' : '+'}${offset}` : hex;
      })
    : result.message;
  if (!block) return message;
  const freed = result.freePc ? at(result.freePc - 1).location : undefined;
  const site = block.allocated ? ` at ${fileLine(block.allocated)}` : '';
  return `${message} (a ${block.size}-byte block allocated${site}${result.freePc ? `, freed${freed ? ` at ${fileLine(freed)}` : ''}` : ''})`;
}

function raceMessage(race: RaceBug['race']): string {
  const where = (access: RaceAccess) => (access.location ? ` at ${fileLine(access.location)}` : '');
  const what = (access: RaceAccess) => (access.atomic ? `atomic ${access.access}` : access.access);
  const does = (access: RaceAccess) => `${access.atomic ? 'atomically ' : ''}${access.access}s`;
  const [earlier, later] = race.accesses;
  if (earlier.access === 'free')
    return `use after free: T${later.thread} ${does(later)} ${race.variable}${where(later)} after T${earlier.thread} freed ${race.freed}${where(earlier)}, unordered`;
  if (later.access === 'end')
    return `use after thread end: T${later.thread} ends${where(later)}, and with it ${race.variable}, unordered with T${earlier.thread}'s ${what(earlier)} of it${where(earlier)} (in another order, it comes after the end)`;
  if (later.access === 'return')
    return `use after return: T${later.thread} returns${where(later)} from the function holding ${race.variable}, unordered with T${earlier.thread}'s ${what(earlier)} of it${where(earlier)} (in another order, it comes after the return)`;
  if (later.access === 'free')
    return `free racing ${earlier.atomic ? 'an' : 'a'} ${what(earlier)}: T${later.thread} frees ${race.freed}${where(later)}, unordered with T${earlier.thread}'s ${what(earlier)} of ${race.variable}${where(earlier)} (in another order, a use after free)`;
  return `data race on ${race.variable}: T${later.thread} ${does(later)}${where(later)}, unordered with T${earlier.thread}'s ${what(earlier)}${where(earlier)}`;
}

function fileLine(location: CodeLocation): string {
  return `${location.file}:${location.line}`;
}

function runtimeMessage({ failure }: Described): { message: string } {
  return { message: failure.result.message || outcomeNames[failure.outcome] || 'failure' };
}

function tracePc(failure: FailingExecution, step: number): number {
  return failure.tracePcs[step] ?? 0;
}

function located(location: CodeLocation | undefined): { location?: BugLocation; source?: string } {
  if (!location) return {};
  const source = sourceLine(location.file, location.line);
  return { location: { file: location.file, line: location.line }, ...(source !== undefined ? { source } : {}) };
}

function lastLocation(steps: BugStep[]): BugLocation | undefined {
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i]!.location) return steps[i]!.location;
  return undefined;
}

/** What an atomic step did besides the value it read: what it wrote, what it expected, its memory order. */
function atomicDetail(failure: FailingExecution, step: number, show: (bits: bigint) => ShownValue): Partial<BugStep> {
  const op = failure.execution.op[step]!;
  const { written, expected, order, rmw } = failure.atomics;
  const detail: Partial<BugStep> = {};
  if (order[step] !== MemoryOrder.SEQ_CST) detail.order = memoryOrderNames[order[step]!] ?? `order ${order[step]}`;
  if (rmwOps.includes(op)) detail.function = rmwFunctionNames[rmw[step]!] || 'rmw';
  else if (op === Op.ATOMIC_CAS || op === Op.ATOMIC_CAS_FAIL) {
    const wanted = show(expected[step]!);
    Object.assign(detail, { function: 'cas', expected: wanted.json, expectedText: wanted.text, succeeded: op === Op.ATOMIC_CAS });
  } else return detail;
  const wrote = show(written[step]!);
  return { ...detail, written: wrote.json, writtenText: wrote.text };
}

/** Marks the rows that lead to the failure (data-flow.ts): the trace never folds them away. */
function markLeadingRows(
  kind: BugKind, failingThread: number, execution: FailingExecution['execution'], steps: BugStep[], accesses: PlainAccess[],
  details: { race?: RaceBug['race']; freedBlock?: string },
): void {
  const rows = inTraceOrder(steps, accesses);
  const events: FlowEvent[] = rows.map((row) => {
    if (!isStep(row)) return { thread: row.thread, target: row.target, reads: row.access === 'read', writes: row.access === 'write', memory: true };
    const op = execution.op[row.step]!;
    const memory = op === Op.PLAIN_READ || op === Op.PLAIN_WRITE || op === Op.FREE || atomicOps.has(op);
    const access = accessOf(op);
    return {
      thread: row.thread, ...(row.target !== undefined ? { target: row.target } : {}), memory,
      reads: memory && (access === Access.READ || writingAtomicOps.has(op)), writes: memory && (access === Access.WRITE || isCommutingUpdate(access)),
    };
  });
  const freed = details.race?.freed ?? details.freedBlock;
  const frees = rows.flatMap((row, index) => (isStep(row) && row.op === opNames[Op.FREE] && row.target === freed ? [index] : []));
  const start = kind === 'race' || kind === 'memory' ? frees : failingReads(events, failingThread);
  for (const index of leadingToFailure(events, start, details.race ? [details.race.variable] : [])) rows[index]!.leadsToFailure = true;
}

/** The heap blocks the counterexample names, with where each was allocated and freed. */
function heapObjectsOf(namer: AddressNamer, execution: FailingExecution['execution'], steps: BugStep[]): { heapObjects?: HeapObject[] } {
  const objects = [...namer.named].sort((a, b) => a.address - b.address).map((block): HeapObject => {
    let free = -1;
    for (let step = 0; step < execution.steps; step++) if (execution.op[step] === Op.FREE && execution.object[step] === block.address) free = step;
    const freed = steps[free]?.location;
    return {
      name: namer.label(block), size: block.size, ...(block.allocated ? { allocated: block.allocated } : {}),
      ...(free >= 0 ? { freedBy: execution.thread[free]!, ...(freed ? { freed } : {}) } : {}),
    };
  });
  return objects.length ? { heapObjects: objects } : {};
}

/** The logged access that is the race's earlier one (the later one failed before it ran). */
function markRacingAccess(logged: readonly LoggedAccess[], accesses: PlainAccess[], result: RunResult): void {
  for (let i = logged.length - 1; i >= 0; i--) {
    const access = logged[i]!;
    const step = access.step === BEFORE_ANY_STEP ? -1 : access.step;
    if (access.thread !== result.raceThread || access.pc !== result.racePc || step !== result.raceStep) continue;
    accesses[i]!.race = true;
    return;
  }
}
