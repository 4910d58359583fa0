// A failing execution turned into what the user reads: the kind of bug, its message and
// location, every step with its source line, and what each thread was doing at the end.
import type { FailingExecution } from '../explore/driver.js';
import { isPreemption } from '../explore/strategy.js';
import type { RunResult } from '../native/addon.js';
import { ObjectKind, Op, OpFlag, Outcome, hasFlag, objectKindOf, opNames, outcomeNames, pcIsFunctionStart } from '../native/ops.js';
import { explainDeadlock } from './deadlock.js';
import { type CodeLocation, sourceLine, symbolize } from './locations.js';
import { AddressNamer } from './names.js';
import { encodeReplay } from './replay.js';

export interface BugLocation {
  file: string;
  line: number;
}

export interface BugStep {
  step: number;
  thread: number;
  op: string;
  /** what the step acted on: a variable, lock or thread, when it has one */
  target?: string;
  value?: number;
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
  location?: BugLocation;
  source?: string;
}

export interface Bug {
  kind: string;
  message: string;
  preemptions: number;
  schedule: string;
  location?: BugLocation;
  thread: number;
  steps: BugStep[];
  threads: ThreadAtEnd[];
  output: string;
  /** a data race: the variable and both accesses, earlier first */
  race?: { variable: string; accesses: [RaceAccess, RaceAccess] };
  /** after a data race: what the race then breaks, when exploration found it */
  consequence?: Bug;
}

const namesObject = (op: number) => objectKindOf(op) === ObjectKind.ADDRESS || objectKindOf(op) === ObjectKind.BLOCK;
/** create and join name the other thread (a thread's start and exit are its own) */
const namesThread = (op: number) => objectKindOf(op) === ObjectKind.THREAD && !hasFlag(op, OpFlag.STARTS_THREAD | OpFlag.ENDS_THREAD);

/** Return addresses point after the call: look up the call itself. */
function lookupOffset(pc: number, op: number): number {
  return pc === 0 || pcIsFunctionStart(op) ? pc : pc - 1;
}

export function describeBug(
  failure: FailingExecution, library: string, test: string, mode: 'drf' | 'sc', visible: readonly string[] = [], build?: string,
): Bug {
  const { execution, result } = failure;
  const namer = new AddressNamer(library, result.libraryBase, result.heapBase);
  // a fault's or the watchdog's pc is the interrupted instruction, not a return address
  const crashed = failure.outcome === Outcome.CRASH || failure.outcome === Outcome.HANG;
  const resultOffset = result.pc === 0 ? 0 : crashed ? result.pc : result.pc - 1;
  const raceOffset = failure.outcome === Outcome.RACE && result.racePc ? result.racePc - 1 : 0;
  const offsets = [resultOffset, raceOffset, result.allocPc - 1, result.freePc - 1];
  for (let step = 0; step < execution.steps; step++) offsets.push(lookupOffset(tracePc(failure, step), execution.op[step]!));
  for (const thread of result.threads) offsets.push(lookupOffset(thread.pc, thread.op));
  const locations = symbolize(library, offsets);
  const at = (offset: number) => located(locations.get(offset));

  const describeTarget = (op: number, object: number): string | undefined =>
    namesObject(op) ? namer.name(object) : namesThread(op) ? `T${object}` : undefined;

  const steps: BugStep[] = [];
  for (let step = 0; step < execution.steps; step++) {
    const op = execution.op[step]!;
    const thread = execution.thread[step]!;
    const entry: BugStep = {
      step, thread, op: opNames[op] ?? `op${op}`,
      preemption: op !== Op.CHOOSE && step > 0 && isPreemption(execution, step, thread),
      ...at(lookupOffset(tracePc(failure, step), op)),
    };
    const target = describeTarget(op, execution.object[step]!);
    if (target !== undefined) entry.target = target;
    if (hasFlag(op, OpFlag.VALUE)) entry.value = execution.value[step]!;
    steps.push(entry);
  }

  const threads: ThreadAtEnd[] = result.threads.map((end, thread) => {
    if (end.state === 2) return { thread, state: 'finished' };
    const target = describeTarget(end.op, end.object);
    return {
      thread,
      state: blockedOn(end.op) ? 'blocked' : 'running',
      waitingFor: `${opNames[end.op] ?? 'op'}${target ? ` ${target}` : ''}`,
      ...at(lookupOffset(end.pc, end.op)),
    };
  });

  const race = failure.outcome === Outcome.RACE
    ? {
        variable: heapBlockName(result, at) ?? namer.name(result.raceAddress),
        accesses: [
          { thread: result.raceThread, access: result.raceEarlierWrite ? 'write' : 'read', ...at(raceOffset) },
          { thread: result.thread, access: result.raceWrite ? 'write' : 'read', ...at(resultOffset) },
        ] as [RaceAccess, RaceAccess],
      }
    : undefined;
  const assertionLocation = result.file && result.line ? { file: result.file, line: result.line } : undefined;
  const location = assertionLocation ?? at(resultOffset).location ?? lastLocation(steps);
  const bug: Bug = {
    kind: outcomeNames[failure.outcome] ?? 'unknown',
    message: race ? raceMessage(race) : failure.outcome === Outcome.DEADLOCK
      ? explainDeadlock({
          execution, ends: result.threads, name: (address) => namer.name(address),
          stepLocation: (step) => steps[step]?.location,
          endLocation: (thread) => threads[thread]?.location,
        })
      : failure.outcome === Outcome.MEMORY ? memoryMessage(result, at)
        : failure.outcome === Outcome.LIVELOCK ? livelockMessage(result.steps, steps, threads)
          : failure.outcome === Outcome.STEP_LIMIT ? stepLimitMessage(result.steps, threads) : bugMessage(failure),
    preemptions: failure.preemptions,
    schedule: encodeReplay({ test, mode, decisions: failure.decisions, visible: [...visible], ...(build ? { build } : {}) }),
    thread: result.thread,
    steps,
    threads,
    output: failure.output,
  };
  if (location) bug.location = location;
  if (race) bug.race = race;
  return bug;
}

/** Livelock: the threads still running and the lines their last steps keep going round. */
function livelockMessage(total: number, steps: BugStep[], threads: ThreadAtEnd[]): string {
  const loops = threads.filter((t) => t.state !== 'finished').map((thread) => {
    const recent = steps.filter((step) => step.thread === thread.thread && step.location).slice(-50);
    const files = new Set(recent.map((step) => step.location!.file));
    if (recent.length === 0 || files.size !== 1) return `T${thread.thread}`;
    const lines = recent.map((step) => step.location!.line);
    const [low, high] = [Math.min(...lines), Math.max(...lines)];
    return `T${thread.thread} loops in ${[...files][0]}:${low}${high > low ? `-${high}` : ''}`;
  });
  return `livelock: no progress after ${total} steps (maxSteps): ${loops.join('; ')}`;
}

/** The step limit: the execution still changed state, so no loop is named; what each thread was doing. */
function stepLimitMessage(total: number, threads: ThreadAtEnd[]): string {
  const doing = threads.filter((t) => t.state !== 'finished').map((thread) =>
    `T${thread.thread} ${thread.state === 'blocked' ? 'waits at' : 'is at'} ${thread.waitingFor}${thread.location ? ` (${thread.location.file}:${thread.location.line})` : ''}`);
  return `step limit reached (maxSteps = ${total.toLocaleString('en-US')}): ${doing.join('; ')}`;
}

/** "offset 4 of a 16-byte heap block allocated at file:line", for an address in a block */
function heapBlockName(result: RunResult, at: (offset: number) => { location?: BugLocation }): string | undefined {
  if (!result.blockAddress) return undefined;
  const location = at(result.allocPc - 1).location;
  const offset = result.raceAddress - result.blockAddress;
  return `offset ${offset} of a ${result.blockSize}-byte heap block allocated${location ? ` at ${location.file}:${location.line}` : ''}`;
}

function memoryMessage(result: RunResult, at: (offset: number) => { location?: BugLocation }): string {
  if (!result.blockAddress) return result.message;
  const where = (pc: number) => {
    const location = at(pc - 1).location;
    return location ? ` at ${location.file}:${location.line}` : '';
  };
  const block = `a ${result.blockSize}-byte block allocated${where(result.allocPc)}`;
  return `${result.message} (${block}${result.freePc ? `, freed${where(result.freePc)}` : ''})`;
}

function raceMessage(race: NonNullable<Bug['race']>): string {
  const where = (access: RaceAccess) => (access.location ? ` at ${access.location.file}:${access.location.line}` : '');
  const [earlier, later] = race.accesses;
  return `data race on ${race.variable}: T${later.thread} ${later.access}s${where(later)}, unordered with T${earlier.thread}'s ${earlier.access}${where(earlier)}`;
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

function blockedOn(op: number): boolean {
  return hasFlag(op, OpFlag.WAITS);
}

function bugMessage(failure: FailingExecution): string {
  return failure.result.message || outcomeNames[failure.outcome] || 'failure';
}
