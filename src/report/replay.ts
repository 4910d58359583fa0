// Replay strings: `weft1:<test>:<mode>:<decisions>[:<build>]`, text that reproduces one
// execution exactly. Decisions are run-length encoded: "0*5.1*2.0" = 0,0,0,0,0,1,1,0.
// The build identity (added later: strings without it still replay; 8 hex digits in older
// strings, 12 now) names the code the schedule was recorded on, so that a replay that no
// longer fits can say what changed — the source, the compiler flags, the toolchain —
// rather than blame the harness.
import { WeftError } from '../errors.js';
import { MAX_THREADS, TRACE_CAPACITY } from '../addon/ops.js';
import { withThousands } from '../numbers.js';
import { IDENTITY_PART } from '../compile/compile.js';

export interface Replay {
  test: string;
  mode: 'drf' | 'sc';
  /** drf mode: racy locations that were scheduling points, as "g<offset>" (global) or "h<offset>" (heap) */
  visible?: string[];
  decisions: number[];
  /** the build the schedule was recorded on (buildIdentity in src/compile/compile.ts) */
  build?: string;
}

const PREFIX = 'weft1';
/** no execution has more steps than the runtime's trace holds: a longer string is not one of ours */
const MAX_DECISIONS = TRACE_CAPACITY;

export function encodeReplay(replay: Replay): string {
  const runs: string[] = [];
  for (let i = 0; i < replay.decisions.length; ) {
    const decision = replay.decisions[i]!;
    let count = 1;
    while (replay.decisions[i + count] === decision) count++;
    runs.push(count === 1 ? `${decision}` : `${decision}*${count}`);
    i += count;
  }
  const mode = replay.visible?.length ? `${replay.mode}+${replay.visible.join(',')}` : replay.mode;
  return `${PREFIX}:${replay.test}:${mode}:${runs.join('.')}${replay.build ? `:${replay.build}` : ''}`;
}

export class ReplayFormatError extends WeftError {
  constructor(text: string, why: string) {
    super('replay-format', `not a weft replay string (${why}): ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`);
    this.name = 'ReplayFormatError';
  }
}

export function decodeReplay(text: string): Replay {
  const parts = text.trim().split(':');
  if (parts[0] !== PREFIX) throw new ReplayFormatError(text, `expected it to start with ${PREFIX}:`);
  if (parts.length !== 4 && parts.length !== 5) throw new ReplayFormatError(text, 'expected weft1:TEST:MODE:DECISIONS[:BUILD]');
  const [, test, modePart, body, build] = parts as [string, string, string, string, string | undefined];
  if (build !== undefined && !/^[0-9a-f]{8}(?:[0-9a-f]{4})?$/.test(build)) throw new ReplayFormatError(text, `bad build identity '${build}'`);
  if (!/^[A-Za-z_]\w*$/.test(test)) throw new ReplayFormatError(text, `bad test name '${test}'`);
  const [mode, visibleList] = modePart.split('+') as [string, string | undefined];
  if (mode !== 'drf' && mode !== 'sc') throw new ReplayFormatError(text, `bad mode '${mode}'`);
  const visible = visibleList === undefined ? [] : visibleList.split(',');
  if (!visible.every((location) => /^[ghs]-?\d+$/.test(location))) throw new ReplayFormatError(text, `bad locations '${visibleList}'`);
  const decisions: number[] = [];
  for (const run of body === '' ? [] : body.split('.')) {
    const match = /^(\d+)(?:\*(\d+))?$/.exec(run);
    if (!match) throw new ReplayFormatError(text, `bad run '${run}'`);
    const decision = Number(match[1]);
    const count = match[2] === undefined ? 1 : Number(match[2]);
    if (decision > 65535 || count < 1) throw new ReplayFormatError(text, `bad run '${run}'`);
    if (decisions.length + count > MAX_DECISIONS) throw new ReplayFormatError(text, `more than ${withThousands(MAX_DECISIONS)} decisions`);
    for (let i = 0; i < count; i++) decisions.push(decision);
  }
  return { test, mode, decisions, ...(visible.length ? { visible } : {}), ...(build ? { build } : {}) };
}

/** What each part of a build identity stands for (compile.ts: BuiltHarness.identity), in order. */
const identityParts = ['the source code', 'the compiler flags (cflags)', "the compiler or weft's runtime"];

/** What differs between the build a schedule was recorded on and the build it is replayed on, in words; undefined: the same build. */
export function buildChanges(recorded: string, now: string): string | undefined {
  if (recorded === now) return undefined;
  const which = `(build ${recorded}; now ${now})`;
  const parts = (identity: string) => identityParts.map((_, index) => identity.slice(index * IDENTITY_PART, (index + 1) * IDENTITY_PART));
  if (recorded.length !== now.length) return `this schedule was recorded on a different build ${which}: the source, the compiler flags or the toolchain changed`;
  const [before, after] = [parts(recorded), parts(now)];
  const changed = identityParts.filter((_, index) => before[index] !== after[index]);
  return `${changed.join(' and ')} changed since this schedule was recorded ${which}`;
}

/** Where a process placed the harness library, its heap arena, its threads' stacks and thread-local blocks (NativeHarness.result()). */
export interface LocationBases {
  libraryBase: number;
  heapBase: number;
  stacksBase: number;
  stacksSize: number;
  tlsBase: number;
  tlsBlockSize: number;
}

/**
 * A location as another process (or run of weft) finds it again: relative to the region that
 * holds it — the threads' thread-local blocks (t: a thread-local variable passed by pointer),
 * the library's globals (g), the threads' stacks (s: a local passed by pointer), the heap
 * arena (h), each mapped at its own address in every process.
 */
export function relativeLocation(address: number, bases: LocationBases): string {
  const local = address - bases.tlsBase;
  if (bases.tlsBlockSize > 0 && local >= 0 && local < bases.tlsBlockSize * MAX_THREADS) return `t${local}`;
  const global = address - bases.libraryBase;
  if (global >= 0 && global < 2 ** 32) return `g${global}`;
  const stack = address - bases.stacksBase;
  return stack >= 0 && stack < bases.stacksSize ? `s${stack}` : `h${address - bases.heapBase}`;
}

export function absoluteLocation(location: string, bases: LocationBases): number {
  const base = { g: bases.libraryBase, s: bases.stacksBase, t: bases.tlsBase }[location[0]!] ?? bases.heapBase;
  return Number(location.slice(1)) + base;
}
