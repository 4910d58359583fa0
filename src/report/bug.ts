// A failing execution turned into what the user reads: the kind of bug, its message and
// location, every step with its source line and value, and what each thread was doing
// at the end. A Bug is a union keyed on its kind; each kind has one describer.
import type { FailingExecution } from '../explore/driver.js';
import { type BoundKind, isPreemption } from '../explore/strategy.js';
import type { RunResult } from '../addon/addon.js';
import { ObjectKind, Op, OpFlag, Outcome, ThreadState, hasFlag, objectKindOf, opNames, outcomeNames, pcIsFunctionStart } from '../addon/ops.js';
import { explainDeadlock } from './deadlock.js';
import type { DebugData } from './debug-data.js';
import { type CodeLocation, sourceLine } from './locations.js';
import { AddressNamer, type HeapBlock, type NamedAddress } from './names.js';
import { encodeReplay } from './replay.js';
import { showValue } from './values.js';
import { withThousands } from '../numbers.js';

export interface BugLocation {
  file: string;
  line: number;
}

export interface BugStep {
  step: number;
  thread: number;
  op: string;
  /** what the step acted on: a variable (down to field and element), lock or thread */
  target?: string;
  /** by the object's type: a number where exact, else the decimal digits (64-bit values beyond 2^53) */
  value?: number | string;
  /** the value as shown: "-5", "-2.5", "0x7f00…", "GREEN", "true", "-1 (0xffffffff)" */
  valueText?: string;
  /** bytes of memory the value was read from or written to */
  size?: number;
  preemption: boolean;
  location?: BugLocation;
  source?: string;
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
  access: 'read' | 'write';
  /** the scheduling step after which it ran, in its thread (plain accesses are no steps in drf mode); none: before its thread's first step */
  afterStep?: number;
  location?: BugLocation;
  source?: string;
}

/** drf mode: a plain access of the failing thread near the failure (plain accesses are no steps there) */
export interface NearAccess {
  thread: number;
  /** the step after which it ran, in its thread */
  afterStep: number;
  access: 'read' | 'write';
  target: string;
  value: number | string;
  valueText: string;
  size: number;
  location?: BugLocation;
  source?: string;
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
  /** drf mode: the failing thread's last plain accesses, with their values */
  accessesNearFailure?: NearAccess[];
  /** after a data race: what the race then breaks, when exploration found it */
  consequence?: Bug;
}

/** a data race: the variable and both accesses, earlier first */
export interface RaceBug extends BugBase {
  kind: 'race';
  race: { variable: string; accesses: [RaceAccess, RaceAccess] };
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
    message: `${failure.result.message}${heapBlock ? `; the first, ${heapBlock.size} bytes, allocated${heapBlock.site ? ` at ${heapBlock.site}` : ''}` : ''}`,
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

/** plain accesses of the failing thread shown near the failure */
const NEAR_ACCESSES = 8;

const namesObject = (op: number) => objectKindOf(op) === ObjectKind.ADDRESS || objectKindOf(op) === ObjectKind.BLOCK;
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
  // a fault's or the watchdog's pc is the interrupted instruction, not a return address
  const crashed = failure.outcome === Outcome.CRASH || failure.outcome === Outcome.HANG;
  const resultOffset = result.pc === 0 ? 0 : crashed ? result.pc : result.pc - 1;
  const raceOffset = failure.outcome === Outcome.RACE && result.racePc ? result.racePc - 1 : 0;
  const near = (failure.accesses ?? []).filter((access) => access.thread === result.thread).slice(-NEAR_ACCESSES);
  const at = (offset: number) => located(offset > 0 ? debug.locate(offset) : undefined);
  const heapBlock = describedBlock(result, at);
  const namer = new AddressNamer(debug, result.libraryBase, result.heapBase, heapBlocks(failure, at));

  const describeTarget = (op: number, object: number, size = 0): NamedAddress | undefined =>
    namesObject(op) ? namer.locate(object, size) : namesThread(op) ? { name: `T${object}` } : undefined;
  const pointee = (address: number) => {
    const name = namer.name(address, Number.POSITIVE_INFINITY); // the whole object there, not its first field
    return name.startsWith('0x') || name.startsWith('heap+') ? undefined : name;
  };

  // typed pointers to heap blocks say what the blocks hold (twice: a block reached through another)
  for (let pass = 0; pass < 2; pass++) {
    for (let step = 0; step < execution.steps; step++) {
      const size = failure.valueSizes[step]!;
      if (size === 8 && namesObject(execution.op[step]!))
        namer.notePointer(Number(failure.valueBits[step]!), namer.locate(execution.object[step]!, size).type);
    }
    for (const access of near) if (access.size === 8) namer.notePointer(Number(access.bits), namer.locate(access.address, 8).type);
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
    const target = describeTarget(op, execution.object[step]!, size);
    if (target !== undefined) entry.target = target.name;
    if (hasFlag(op, OpFlag.VALUE)) {
      const shown = size > 0
        ? showValue(failure.valueBits[step]!, size, target?.type, namer.info, pointee)
        : showValue(BigInt(execution.value[step]!), 0, undefined, undefined);
      entry.value = shown.json;
      entry.valueText = shown.text;
      if (size > 0) entry.size = size;
    }
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

  const accessesNearFailure = near.map((access): NearAccess => {
    const target = namer.locate(access.address, access.size);
    const value = showValue(access.bits, access.size, target.type, namer.info, pointee);
    return {
      thread: access.thread, afterStep: access.step, access: access.write ? 'write' : 'read', target: target.name,
      value: value.json, valueText: value.text, size: access.size, ...at(access.pc - 1),
    };
  });

  const kind = (outcomeNames[failure.outcome] ?? 'crash') as BugKind;
  const touched = new Map<number, Set<string>>();
  const touch = (thread: number, object: string) => touched.set(thread, (touched.get(thread) ?? new Set()).add(object));
  for (let step = 0; step < execution.steps; step++)
    if (namesObject(execution.op[step]!)) touch(execution.thread[step]!, steps[step]!.target!);
  for (const access of failure.accesses ?? []) touch(access.thread, namer.name(access.address, access.size));
  const involved = [result.thread, ...(kind === 'race' ? [result.raceThread] : [])];
  if (kind !== 'race' && kind !== 'assertion') for (const end of threads) if (end.state !== 'finished') involved.push(end.thread);
  const described: Described = { failure, steps, threads, namer, at, resultOffset, raceOffset, ...(heapBlock ? { heapBlock } : {}) };
  const details = (describers[kind] as (described: Described) => Details<BugKind>)(described);
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
    ...(accessesNearFailure.length ? { accessesNearFailure } : {}),
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
  const race: RaceBug['race'] = {
    variable: namer.name(result.raceAddress),
    accesses: [
      {
        thread: result.raceThread, access: result.raceEarlierWrite ? 'write' : 'read',
        ...(result.raceStep >= 0 ? { afterStep: result.raceStep } : {}), ...at(raceOffset),
      },
      // the failing thread's access ran after the last step: it was running since
      { thread: result.thread, access: result.raceWrite ? 'write' : 'read', afterStep: execution.steps - 1, ...at(resultOffset) },
    ],
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

/** a block, with where it was allocated ("f.c:12") */
function heapBlock(address: number, size: number, allocPc: number, at: Described['at']): HeapBlock {
  const site = at(allocPc - 1).location;
  return { address, size, ...(site ? { site: `${site.file}:${site.line}` } : {}) };
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
  return `livelock: no progress after ${result.steps} steps (maxSteps): ${loops.join('; ')}`;
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
        return Math.abs(offset) <= 1 << 20 ? `block${block.site ? `@${block.site.split('/').pop()}` : ''}${offset < 0 ? '' : '+'}${offset}` : hex;
      })
    : result.message;
  if (!block) return message;
  const freed = result.freePc ? at(result.freePc - 1).location : undefined;
  const site = block.site ? ` at ${block.site}` : '';
  return `${message} (a ${block.size}-byte block allocated${site}${result.freePc ? `, freed${freed ? ` at ${freed.file}:${freed.line}` : ''}` : ''})`;
}

function raceMessage(race: RaceBug['race']): string {
  const where = (access: RaceAccess) => (access.location ? ` at ${access.location.file}:${access.location.line}` : '');
  const [earlier, later] = race.accesses;
  return `data race on ${race.variable}: T${later.thread} ${later.access}s${where(later)}, unordered with T${earlier.thread}'s ${earlier.access}${where(earlier)}`;
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
