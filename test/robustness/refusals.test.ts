// Calls that would let a harness get around the runtime (raw system calls, dynamic symbol
// lookup), run code outside any execution (exit handlers), or carry state from one
// execution to the next inside libc are refused before anything runs: one line, exit 2.
import { describe, expect, it } from 'vitest';

import { runCli, writeHarness } from '../support/harness.js';

const prelude = '#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n#include <sys/syscall.h>\n';

describe('refused before running', () => {
  it.each([
    ['syscall', 'int main(void) { return (int)syscall(SYS_exit_group, 5); }', /'syscall' is not supported/],
    ['dlsym', 'int main(void) { return dlsym(RTLD_DEFAULT, "raise") != 0; }', /'dlsym' is not supported/],
    ['dlopen', 'int main(void) { return dlopen("libc.so.6", RTLD_NOW) != 0; }', /'dlopen' is not supported/],
    ['atexit', 'static void bye(void) {}\nint main(void) { atexit(bye); return 0; }', /'atexit' is not supported.*exit handlers/],
    ['strtok', 'int main(void) { char s[] = "a,b"; return strtok(s, ",") == 0; }', /'strtok' is not supported.*strtok_r/],
    ['drand48', 'int main(void) { return drand48() > 2.0; }', /'drand48' is not supported/],
  ])('%s', (_, body, message) => {
    const run = runCli(['check', writeHarness(`${prelude}${body}\n`, 'refused.c')]);
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
    expect(run.stderr).toMatch(/refused\.c:\d+: /);
  });
});

describe("the runtime's internal names are its own", () => {
  it('a harness may define functions and variables named like runtime internals', () => {
    const file = writeHarness(
      '#include <weft.h>\nint race_visible(int x) { return x + 1; }\nvoid output_append(void) {}\nint sched_point = 3;\n' +
        'int main(void) { output_append(); return race_visible(1) != 2 || sched_point != 3; }\n',
      'names.c',
    );
    const run = runCli(['check', file]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
