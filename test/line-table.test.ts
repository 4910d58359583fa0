// Counterexamples name source lines from the line table readelf decodes (one tool run with
// the rest of the debug data). addr2line is the reference: for every code address of
// several harnesses (an #included .c file, headers with code, inlined functions, a header
// in a subdirectory) both must name the same file and line, or both none. The Vitest plugin
// keeps the parsed listing beside the library: it serves that library file only.
import { spawnSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { buildHarness } from '../src/compile/compile.js';
import { listAhead, readDebugData } from '../src/report/debug-data.js';
import { fixture, writeHarness } from './support/harness.js';

/** addr2line's file:line per address ("??:0" and line 0: none), absolute; the addresses on its input (as arguments, a library's every one would pass the kernel's limit) */
function addr2line(library: string, addresses: readonly number[]): (string | undefined)[] {
  const input = addresses.map((address) => `0x${address.toString(16)}`).join('\n');
  const output = spawnSync('addr2line', ['-e', library], { input, encoding: 'utf8', maxBuffer: 1 << 26 });
  return output.stdout.trimEnd().split('\n').map((line) => {
    const position = /^(.*):(\d+)/.exec(line);
    return position && position[1] !== '??' && position[2] !== '0' ? `${resolve(position[1]!)}:${position[2]}` : undefined;
  });
}

function headerInSubdirectory(): string {
  const file = writeHarness(`#include <pthread.h>
#include <weft.h>
#include "sub/helper.h"
static int x;
static void *worker(void *unused) { x = helper(&x); return unused; }
WEFT_TEST(inlined_from_a_header) {
  pthread_t a;
  pthread_create(&a, 0, worker, 0);
  x = 2;
  pthread_join(a, 0);
  weft_assert(x == 3);
}
`, 'inlined.c');
  mkdirSync(join(dirname(file), 'sub'));
  writeFileSync(join(dirname(file), 'sub', 'helper.h'), `static inline int helper(int *p) {
  int seen = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  return seen + 1;
}
`);
  return file;
}

describe('the line table of a harness library', () => {
  const harnesses = {
    'an #included .c file': () => fixture('report/refobj.test.c'),
    'a header with code': () => fixture('random/check_then_act.c'),
    'a larger harness': () => fixture('seeds/work_stealing_queue.c'),
    'heap fields': () => fixture('report/heap_fields.c'),
    'an inlined function from a header in a subdirectory': headerInSubdirectory,
  };
  for (const [name, harness] of Object.entries(harnesses)) {
    it(`names the line addr2line names for every code address: ${name}`, () => {
      const { library } = buildHarness(harness());
      const debug = readDebugData(library);
      const text = spawnSync('readelf', ['--wide', '--sections', library], { encoding: 'utf8' }).stdout;
      const section = /\s\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(text)!;
      const start = parseInt(section[1]!, 16);
      const addresses = Array.from({ length: parseInt(section[2]!, 16) }, (_, index) => start + index);
      const expected = addr2line(library, addresses);
      const located = addresses.map((address) => {
        const location = debug.locate(address);
        return location && `${resolve(location.file)}:${location.line}`;
      });
      expect(expected.filter((position) => position !== undefined).length).toBeGreaterThan(50);
      const differing = addresses.flatMap((address, index) =>
        located[index] === expected[index] ? [] : [`0x${address.toString(16)}: ${located[index]} vs addr2line ${expected[index]}`]);
      expect(differing).toEqual([]);
    });
  }
});

describe('the debug listing kept beside a library', () => {
  it('is read instead of running readelf, and only for the library file it lists', async () => {
    const file = writeHarness('#include <weft.h>\nint shared;\nWEFT_TEST(listed) { shared = 1; weft_assert(shared == 2); }\n', 'listed.c');
    const { library } = buildHarness(file, { cacheDirectory: join(dirname(file), 'cache') });
    await listAhead(library);
    const path = process.env.PATH;
    process.env.PATH = join(dirname(file), 'no-tools-here');
    try {
      expect(readDebugData(library).symbols.map((symbol) => symbol.name)).toContain('shared');
      // the same name, another file (rebuilt in place): its listing is not used
      utimesSync(library, new Date(), new Date(Date.now() + 5000));
      expect(() => readDebugData(library)).toThrow(/'readelf' was not found/);
    } finally {
      process.env.PATH = path;
    }
    expect(readDebugData(library).symbols.map((symbol) => symbol.name)).toContain('shared');
  });
});
