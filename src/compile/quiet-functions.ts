// The harness's functions from which no call reaches a thread create, found in the linked
// library's code (`objdump -d`, as unused-results.ts reads it): a thread started in one never
// creates a thread. The runtime marks such a thread's start step (runtime/results.c), and the
// graph engine relies on it: a create of main's that no thread able to create can revisit
// keeps its place in every graph below (graph/stable-prefix.ts). So what this cannot follow
// counts as a create: an indirect call or jump, a call of a C library function it does not
// know, a runtime entry that calls a function it is given. A harness that calls an entry
// whose function runs at any thread's end (a key's destructor) has no quiet function.

/** runtime entries that create a thread */
export const CREATING_ENTRIES: ReadonlySet<string> = new Set(['weft_pthread_create', 'weft_thrd_create']);
/** runtime entries that call a function the harness gives them, in the calling thread */
export const CALLING_BACK_ENTRIES: ReadonlySet<string> = new Set(['weft_pthread_once', 'weft_call_once', 'weft_qsort']);
/** runtime entries whose function runs at the end of every thread that set a value (a key's destructor) */
export const AT_EVERY_END_ENTRIES: ReadonlySet<string> = new Set(['weft_pthread_key_create', 'weft_tss_create']);

/** C library functions called as they are (not redirected to the runtime) that call nothing of the harness's */
const PURE_LIBRARY_FUNCTION =
  /^(?:(?:sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|exp|exp2|log|log2|log10|pow|sqrt|cbrt|hypot|fabs|floor|ceil|round|lround|llround|trunc|fmod|remainder|fmin|fmax|fma|ldexp|frexp|modf|nan|copysign)[fl]?|abs|labs|llabs|div|ldiv|lldiv|is(?:alnum|alpha|blank|cntrl|digit|graph|lower|print|punct|space|upper|xdigit)|to(?:lower|upper)|__ctype_(?:b|tolower|toupper)_loc|__errno_location|strerror|pthread_(?:mutexattr|attr|condattr|rwlockattr|barrierattr)_\w+)$/;

const FUNCTION = /^([0-9a-f]+) <(.+)>:$/;
const INSTRUCTION = /^\s*[0-9a-f]+:\t(.*)$/;
/** a call or branch (prefixed or not), its operand after it */
const BRANCH = /^(?:(?:bnd|notrack)\s+)*(?:call|j[a-z]+)\w*\s+(.*)$/;
/** a direct target: the function's name, with an offset into it or none */
const DIRECT_TARGET = /^[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>$/;

/** What a call from a harness function leads to. */
const Callee = { HARNESS: 0, QUIET: 1, CREATES: 2 } as const;

/** The functions the harness's objects define, and the runtime's, by name. */
export interface DefinedFunctions {
  harness: ReadonlySet<string>;
  runtime: ReadonlySet<string>;
}

/**
 * The entry offsets (ascending) of the harness's functions from which no call reaches a
 * thread create. A name both define (a static function of the harness named as one of the
 * runtime's) is the harness's: the calls of both count.
 */
export function quietFunctions(disassembly: string, functions: DefinedFunctions): number[] {
  const entries = new Map<string, number>();
  const calls = new Map<string, Set<string>>();
  const creates = new Set<string>();
  let current: string | undefined;
  for (const line of disassembly.split('\n')) {
    const header = FUNCTION.exec(line);
    if (header) {
      const name = header[2]!;
      current = functions.harness.has(name) ? name : undefined;
      if (current !== undefined && !entries.has(current)) {
        entries.set(current, Number.parseInt(header[1]!, 16));
        calls.set(current, new Set());
      }
      continue;
    }
    if (current === undefined) continue;
    const instruction = INSTRUCTION.exec(line)?.[1];
    const operand = instruction === undefined ? undefined : BRANCH.exec(instruction)?.[1]?.trim();
    if (operand === undefined) continue;
    const target = DIRECT_TARGET.exec(operand)?.[1];
    // through a register or memory: anything may be called
    if (target === undefined) {
      creates.add(current);
      continue;
    }
    if (target === current) continue;
    const callee = classify(target, functions);
    if (callee === Callee.CREATES) creates.add(current);
    else if (callee === Callee.HARNESS) calls.get(current)!.add(target);
    if (AT_EVERY_END_ENTRIES.has(target)) return [];
  }
  // what calls a function that creates, creates
  let changed = true;
  while (changed) {
    changed = false;
    for (const [caller, callees] of calls) {
      if (creates.has(caller)) continue;
      for (const callee of callees) {
        if (!creates.has(callee) && entries.has(callee)) continue;
        creates.add(caller);
        changed = true;
        break;
      }
    }
  }
  return [...entries].filter(([name]) => !creates.has(name)).map(([, entry]) => entry).sort((a, b) => a - b);
}

function classify(target: string, functions: DefinedFunctions): number {
  const plt = /^(.+)@plt$/.exec(target);
  if (plt) return PURE_LIBRARY_FUNCTION.test(plt[1]!) ? Callee.QUIET : Callee.CREATES;
  if (functions.harness.has(target)) return Callee.HARNESS;
  // a function of neither: not followed
  if (!functions.runtime.has(target)) return Callee.CREATES;
  return CREATING_ENTRIES.has(target) || CALLING_BACK_ENTRIES.has(target) || AT_EVERY_END_ENTRIES.has(target) ? Callee.CREATES : Callee.QUIET;
}
