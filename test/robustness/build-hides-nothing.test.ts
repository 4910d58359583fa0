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

describe('string and memory functions that read are checked as reads', () => {
  it.each([
    ['strlen of a freed block', 'char *p = malloc(16); strcpy(p, "freed"); free(p); if (strlen(p) == 99) puts("?");', /use after free/],
    ['strcmp of a freed block', 'char *p = strdup("freed"); free(p); if (strcmp(p, "x") == 0) puts("?");', /use after free/],
    ['memcmp past the end of a block', 'static char big[64]; char *p = calloc(1, 16); if (memcmp(p, big, 64) == 0) puts("equal"); free(p);', /out of bounds/],
    ['memchr past the end of a block', 'char *p = calloc(1, 16); if (memchr(p, 1, 64)) puts("found"); free(p);', /out of bounds/],
    ['strdup of a freed block', 'char *p = strdup("freed"); free(p); char *q = strdup(p); free(q);', /use after free/],
    ['qsort of a freed array', 'int *p = calloc(4, sizeof *p); free(p); qsort(p, 4, sizeof *p, compare);', /use after free/],
    ['printf of a freed string', 'char *p = strdup("gone"); free(p); printf("%5.2f %ld %s\\n", 1.5, 7L, p);', /use after free/],
    ['puts of a freed string', 'char *p = strdup("gone"); free(p); puts(p);', /use after free/],
    ['fwrite of a freed block', 'char *p = strdup("gone"); free(p); fwrite(p, 1, 4, stdout);', /use after free/],
    ['%n into a freed block', 'int *p = malloc(sizeof *p); free(p); printf("ab%n", p);', /use after free/],
  ])('%s', async (_, body, message) => {
    const file = writeHarness(`#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nstatic int compare(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\nint main(void) {\n${body}\n  return 0;\n}\n`);
    const test = (await checkAllInterleavings(file)).tests[0]!;
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'memory', message: expect.stringMatching(message) } });
  });

  it('a read racing with another thread\'s write is a race, and reads that stop in time pass', async () => {
    const file = writeHarness(`
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <weft.h>
static char shared[32] = "initial";
static void *writer(void *unused) { (void)unused; strcpy(shared, "changed by the writer"); return NULL; }
WEFT_TEST(strlen_races) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  size_t n = strlen(shared);
  pthread_join(t, NULL);
  weft_assert(n > 0);
}
WEFT_TEST(printf_races) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  printf("%d:%.*s|%c%%\\n", 3, 4, shared, 'x');
  pthread_join(t, NULL);
}
WEFT_TEST(formats_within_bounds) {
  char buffer[64];
  int written = 0;
  char *p = strdup("abcdef");
  snprintf(buffer, sizeof buffer, "%*d %-8s %.3s %p %n%Lf %hhd %zu %lc %ls", 5, 42, p, p, (void *)p, &written, 1.0L, (char)1, (size_t)2, 'w', L"wide");
  printf("%s %d %m\\n", buffer, written);
  printf("%C %S %qd %s %2$s\\n", (wint_t)'x', L"w", 5LL, p);
  free(p);
}
WEFT_TEST(reads_within_bounds) {
  char *p = calloc(1, 16);
  strcpy(p, "abc");
  weft_assert(strlen(p) == 3 && strnlen(p, 2) == 2 && strcmp(p, "abd") < 0 && strncmp(p, "abx", 2) == 0);
  weft_assert(memcmp(p, "abz", 3) < 0 && memchr(p, 'c', 16) == p + 2 && strchr(p, 'b') == p + 1 && strrchr(p, 0) == p + 3);
  weft_assert(strstr(p, "bc") == p + 1 && strstr(p, "zz") == NULL);
  free(p);
}
`);
    const tests = new Map((await checkAllInterleavings(file)).tests.map((test) => [test.name, test]));
    expect(tests.get('strlen_races')?.bug).toMatchObject({ kind: 'race', message: expect.stringContaining('shared') });
    expect(tests.get('printf_races')?.bug).toMatchObject({ kind: 'race', message: expect.stringContaining('shared') });
    expect(tests.get('formats_within_bounds')?.status).toBe('pass');
    expect(tests.get('reads_within_bounds')?.status).toBe('pass');
  });
});

describe('-D_FORTIFY_SOURCE: the checked variants libc would abort the process in are checked as the plain ones', () => {
  it.each([
    ['memcpy past a 8-byte global', 'static char dst[8]; static char src[32] = "0123456789abcdef"; volatile size_t n = 16; memcpy(dst, src, n);', /buffer overflow: 16 bytes written into an object of 8 bytes/],
    ['strcpy past a 8-byte block', 'char *p = malloc(8); static char src[32] = "0123456789abcdef"; strcpy(p, src); free(p);', /buffer overflow: 17 bytes written into an object of 8 bytes/],
    ['snprintf with a size past its 8-byte buffer', 'static char dst[8]; volatile size_t n = 16; snprintf(dst, n, "%d", 1);', /buffer overflow: 16 bytes written into an object of 8 bytes/],
    ['sprintf into a freed block', 'char *p = malloc(16); free(p); sprintf(p, "%d", 12);', /use after free/],
  ])('%s', async (_, body, message) => {
    const test = (await checkAllInterleavings(program(body), { cflags: '-D_FORTIFY_SOURCE=2' })).tests[0]!;
    // at the harness's line, not in the header whose inline wrapper made the call
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'memory', message: expect.stringMatching(message), location: { line: 5 } } });
  });

  it('writes that fit pass', async () => {
    const body = 'static char dst[16]; char *p = malloc(16); strcpy(p, "fits"); memcpy(dst, p, 5); snprintf(dst, sizeof dst, "%s!", p); strcat(dst, "x"); free(p);';
    expect((await checkAllInterleavings(program(body), { cflags: '-D_FORTIFY_SOURCE=2' })).tests[0]!.status).toBe('pass');
  });
});

describe('flags that would remove the instrumentation are refused', () => {
  it.each(['-fno-sanitize=thread', '-fno-sanitize=all', '-fsanitize=address'])('%s', (flag) => {
    const run = runCli(['check', program('char *p = malloc(16); free(p); free(p);'), '--cflags', flag]);
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([`weft: the flag '${flag}' would change the instrumentation weft runs the harness with: remove it from cflags`]);
  });
});
