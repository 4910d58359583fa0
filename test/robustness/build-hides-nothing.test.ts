// "pass" must mean the bug is not there, not that the build removed it: heap operations
// survive optimisation, string writes are checked, and flags that would strip weft's
// instrumentation are refused.
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../../src/index.js';
import { runCli, writeHarness } from '../support/harness.js';

const program = (body: string) => writeHarness(`#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void) {\n${body}\n  return 0;\n}\n`);

describe('heap bugs the default -O1 build used to delete', () => {
  it.each([
    ['a use after free', 'int *p = malloc(sizeof *p); *p = 1; free(p); if (*p == 7) puts("seven");', /use after free/],
    ['a double free', 'char *p = malloc(16); free(p); free(p);', /double free/],
  ])('%s', async (_, body, message) => {
    const test = (await checkAllInterleavings(program(body))).tests[0]!;
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'memory', message: expect.stringMatching(message) } });
  });
});

describe('string and memory functions are checked against heap bounds', () => {
  it.each([
    ['strcpy', 'char *p = malloc(16); strcpy(p, "this string is far longer than sixteen bytes"); free(p);'],
    ['strcat', 'char *p = malloc(16); strcpy(p, "0123456789"); strcat(p, "0123456789"); free(p);'],
    ['sprintf', 'char *p = malloc(16); sprintf(p, "%s and more", "far too long for the block"); free(p);'],
    ['snprintf with a size larger than the block', 'char *p = malloc(16); snprintf(p, 64, "%s", "far too long for the block"); free(p);'],
    ['memset of 1 MB', 'char *p = malloc(16); memset(p, 0, 1 << 20); free(p);'],
    ['memcpy of 1 MB', 'static char big[1 << 20]; char *p = malloc(16); memcpy(p, big, sizeof big); free(p);'],
    ['memset of 4 GiB', 'char *p = malloc(16); volatile size_t n = (size_t)1 << 32; memset(p, 0, n); free(p);'],
  ])('%s past the end of a 16-byte block', async (_, body) => {
    const test = (await checkAllInterleavings(program(body))).tests[0]!;
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'memory', message: expect.stringMatching(/out of bounds/) } });
  });

  it('a write that fits passes', async () => {
    const test = (await checkAllInterleavings(program('char *p = malloc(16); snprintf(p, 16, "%s", "far too long for the block"); strcpy(p, "fits"); free(p);'))).tests[0]!;
    expect(test.status).toBe('pass');
  });
});

describe('flags that would remove the instrumentation are refused', () => {
  it.each(['-fno-sanitize=thread', '-fno-sanitize=all', '-fsanitize=address'])('%s', (flag) => {
    const run = runCli(['check', program('char *p = malloc(16); free(p); free(p);'), '--cflags', flag]);
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([`weft: the flag '${flag}' would change the instrumentation weft runs the harness with: remove it from cflags`]);
  });
});
