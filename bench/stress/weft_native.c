/* weft.h for real threads: links a harness into an ordinary executable so that it can be
 * stress-tested the traditional way (run it over and over and hope an interleaving shows
 * the bug). Used by the benchmarks as the baseline weft is compared with.
 *
 *   ./harness TEST   runs one WEFT_TEST (all of them without an argument)
 *   exit status 0: passed; 1: a check failed (the message is on stderr). */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/weft.h"

void weft_assert_fail(const char *expression, const char *file, int line, const char *format, ...) {
  fprintf(stderr, "%s:%d: assertion failed: ", file, line);
  if (format) {
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
  } else {
    fputs(expression, stderr);
  }
  fputc('\n', stderr);
  exit(1);
}

int weft_choose(int n) { return n <= 1 ? 0 : rand() % n; }

void weft_yield(void) { sched_yield(); }

void weft_label(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vprintf(format, args);
  va_end(args);
  putchar('\n');
}

extern const struct weft_test_descriptor __start_weft_tests[] __attribute__((weak));
extern const struct weft_test_descriptor __stop_weft_tests[] __attribute__((weak));

/* Only linked when the harness has no main() of its own. */
int weft_native_main(int argc, char **argv) {
  int ran = 0;
  for (const struct weft_test_descriptor *test = __start_weft_tests; test && test < __stop_weft_tests; test++) {
    if (argc > 1 && strcmp(argv[1], test->name) != 0) continue;
    test->body();
    ran++;
  }
  if (ran == 0) {
    fprintf(stderr, "no test named %s\n", argc > 1 ? argv[1] : "(any)");
    return 2;
  }
  return 0;
}
