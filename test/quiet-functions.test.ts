// The functions from which no call reaches a thread create: the build lists them from the
// library's code (src/compile/quiet-functions.ts), the runtime marks the start step of a
// thread started in one, and the graph engine keeps main's creates in place when no thread
// that could revisit them can create (src/explore/graph/stable-prefix.ts).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { openHarness } from '../src/addon/addon.js';
import { Op } from '../src/addon/ops.js';
import { buildHarness } from '../src/compile/compile.js';
import { AT_EVERY_END_ENTRIES, CALLING_BACK_ENTRIES, CREATING_ENTRIES, quietFunctions } from '../src/compile/quiet-functions.js';
import { redirectedSymbols } from '../src/compile/symbols.js';
import { QUIET_FUNCTIONS_SECTION } from '../src/addon/op-table.js';
import { packageRoot } from '../src/paths.js';
import { runTool } from '../src/compile/toolchain.js';
import { BOUNDS_ONLY, checkSoundness } from './support/soundness-check.js';
import { fixture, writeHarness } from './support/harness.js';

const FUNCTIONS = {
  harness: new Set(['worker', 'creator', 'helper', 'via_helper', 'main']),
  runtime: new Set(['weft_pthread_create', 'weft_pthread_mutex_lock', 'weft_pthread_once', 'weft_pthread_key_create', '__tsan_func_entry']),
};

/** objdump -d --no-show-raw-insn -w text of functions, each given as its name and instructions */
function listing(...functions: [string, ...string[]][]): string {
  return functions.map(([name, ...instructions], f) => {
    const base = 0x1000 * (f + 1);
    const lines = instructions.map((text, i) => `    ${(base + 4 * i).toString(16)}:\t${text}`);
    return `\n${base.toString(16).padStart(16, '0')} <${name}>:\n${lines.join('\n')}\n`;
  }).join('');
}
const at = (f: number) => 0x1000 * (f + 1);

describe('finding the functions that never create a thread', () => {
  it('lists a function whose calls are quiet runtime entries, pure C library functions and quiet functions', () => {
    const code = listing(
      ['worker', 'call   5000 <__tsan_func_entry>', 'lea    0x32a36(%rip),%r14        # 36080 <lock>', 'call   6000 <weft_pthread_mutex_lock>', 'call   3000 <helper>', 'jne    1000 <worker>', 'ret'],
      ['creator', 'call   7000 <weft_pthread_create>', 'ret'],
      ['helper', 'call   8000 <sqrt@plt>', 'jmp    3008 <helper+0x8>', 'ret'],
      ['via_helper', 'call   2000 <creator>', 'ret'],
    );
    expect(quietFunctions(code, FUNCTIONS)).toEqual([at(0), at(2)]);
  });

  it('takes what it cannot follow as a create: an indirect call or jump, an unknown C library function, a runtime entry that calls back', () => {
    for (const call of ['call   *%rax', 'notrack jmp *%rax', 'jmp    *0x10(%rip)', 'call   9000 <bsearch@plt>', 'call   9000 <weft_pthread_once>', 'call   9000 <unknown_elsewhere>'])
      expect(quietFunctions(listing(['worker', call, 'ret']), FUNCTIONS), call).toEqual([]);
  });

  it('lists nothing where a key is created anywhere: its destructor runs at the end of any thread', () => {
    const code = listing(['worker', 'ret'], ['main', 'call   9000 <weft_pthread_key_create>', 'ret']);
    expect(quietFunctions(code, FUNCTIONS)).toEqual([]);
  });

  it('knows every runtime entry the harness is redirected to that takes a function', () => {
    const runtime = join(packageRoot, 'runtime');
    const sources = readdirSync(runtime).filter((name) => name.endsWith('.c')).map((name) => readFileSync(join(runtime, name), 'utf8')).join('\n');
    const takingFunctions = [...redirectedSymbols.values()].filter((entry) => {
      const signature = new RegExp(`WEFT_HIDDEN [^;{]*\\b${entry}\\(([^{;]*)\\)\\s*\\{`).exec(sources)?.[1] ?? '';
      return /\(\*|thrd_start_t|tss_dtor_t|__compar_fn_t/.test(signature);
    });
    expect(takingFunctions.length).toBeGreaterThan(3);
    for (const entry of takingFunctions) expect(CREATING_ENTRIES.has(entry) || CALLING_BACK_ENTRIES.has(entry) || AT_EVERY_END_ENTRIES.has(entry), entry).toBe(true);
  });

  it('a built harness lists its quiet start routines and not those that create, directly, through a helper or a pointer', () => {
    const file = writeHarness(`
#include <pthread.h>
#include <weft.h>
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;
static void *quiet(void *unused) { pthread_mutex_lock(&lock); counter++; pthread_mutex_unlock(&lock); return unused; }
static void *creates(void *unused) { pthread_t t; pthread_create(&t, NULL, quiet, NULL); pthread_join(t, NULL); return unused; }
__attribute__((noinline)) static void start_one(void) { pthread_t t; pthread_create(&t, NULL, quiet, NULL); pthread_join(t, NULL); }
static void *through_helper(void *unused) { start_one(); return unused; }
static void (*volatile call_me)(void) = start_one;
static void *through_pointer(void *unused) { call_me(); return unused; }
WEFT_TEST(starts) {
  pthread_t t[4];
  pthread_create(&t[0], NULL, creates, NULL);
  pthread_create(&t[1], NULL, through_helper, NULL);
  pthread_create(&t[2], NULL, through_pointer, NULL);
  pthread_create(&t[3], NULL, quiet, NULL);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
}
`);
    const { library } = buildHarness(file);
    const symbols = new Map(runTool('nm', [library]).stdout.split('\n').map((line) => line.split(' ')).filter((fields) => fields.length === 3).map(([address, , name]) => [name!, Number.parseInt(address!, 16)]));
    const dump = runTool('objcopy', ['--dump-section', `${QUIET_FUNCTIONS_SECTION}=${file}.quiet`, library, `${file}.copy`]);
    expect(dump.status).toBe(0);
    const listed = new Set(new Uint32Array(new Uint8Array(readFileSync(`${file}.quiet`)).buffer));
    expect(listed.has(symbols.get('quiet')!)).toBe(true);
    for (const name of ['creates', 'through_helper', 'through_pointer', 'start_one']) expect(listed.has(symbols.get(name)!), name).toBe(false);
    // the runtime marks the start step of each thread started in a quiet function (its value is 1), of no other
    const harness = openHarness(library);
    const trace = harness.trace();
    harness.run(0, new Uint16Array(0), 0, 10_000, 0);
    const quietStarts = new Map<number, number>();
    for (let step = 0; step < trace.status[0]!; step++) if (trace.op[step] === Op.THREAD_START) quietStarts.set(trace.pc[step]!, trace.value[step]!);
    expect(quietStarts).toEqual(new Map([...['creates', 'through_helper', 'through_pointer'].map((name) => [symbols.get(name)!, 0] as const), [symbols.get('quiet')!, 1]]));
  });
});

describe('graph: main\'s creates stay where no thread able to revisit them creates', () => {
  it('4 x 3 locked increments: at bounds 1 and 2 at most as many runs past the bound as classes within it', async () => {
    for (const [maxBound, classes] of [[1, 312], [2, 2424]] as const) {
      const test = (await checkAllInterleavings(fixture('por/locked_increments.c'), { strategy: 'graph', cflags: '-DTHREADS=4 -DINCREMENTS=3', maxBound })).tests[0]!;
      expect(test).toMatchObject({ status: 'pass', executions: classes });
      expect(test.redundantRuns).toBeLessThanOrEqual(classes);
    }
  });

  it.each(['soundness/creates_number_threads.c', 'graph/worker_creates_sometimes.c'])('%s: threads that create threads, at bounds 0-3 as dfs', async (file) => {
    // unbounded dfs: 3,431 executions for creates_number_threads.c; worker_creates_sometimes.c's
    // pass 20,000, so there only the bounds are compared
    const result = await checkSoundness(fixture(file), 'drf', 3, file.endsWith('sometimes.c') ? BOUNDS_ONLY : 5_000, ['graph']);
    expect(result).toMatchObject({ problems: [], redundant: [], refused: [] });
  });
});
