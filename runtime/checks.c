/* How a harness ends an execution on purpose: weft_assert, assert(), abort(), exit(). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

static void set_location(const char *file, int line) {
  struct weft_result *result = &weft_rt->result;
  snprintf(result->file, sizeof result->file, "%s", file ? file : "");
  result->line = line;
}

void weft_assert_fail(const char *expression, const char *file, int line, const char *format, ...) {
  uintptr_t pc = WEFT_CALLER_PC();
  struct weft_result *result = &weft_rt->result;
  set_location(file, line);
  if (format) {
    va_list args;
    va_start(args, format);
    vsnprintf(result->message, sizeof result->message, format, args);
    va_end(args);
  } else {
    snprintf(result->message, sizeof result->message, "%s", expression);
  }
  execution_failed(WEFT_OUTCOME_ASSERTION, pc);
}

WEFT_HIDDEN void weft___assert_fail(const char *expression, const char *file, unsigned line,
                                    const char *function) {
  (void)function;
  uintptr_t pc = WEFT_CALLER_PC();
  set_location(file, (int)line);
  execution_fail(WEFT_OUTCOME_ASSERTION, pc, "%s", expression);
}

WEFT_HIDDEN void weft_abort(void) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_PROCESS_EXIT, 0, 134, pc);
  execution_fail(WEFT_OUTCOME_EXIT, pc, "abort() called");
}

static void exit_at(int status, uintptr_t pc) WEFT_NORETURN;
static void exit_at(int status, uintptr_t pc) {
  sched_point(WEFT_OP_PROCESS_EXIT, 0, (uint64_t)status, pc);
  weft_rt->result.exit_status = status;
  if (status != 0) execution_fail(WEFT_OUTCOME_EXIT, pc, "exit(%d)", status);
  execution_end(WEFT_OUTCOME_OK, pc);
}

/* -fstack-protector's check: libc would abort the whole process */
WEFT_HIDDEN void weft___stack_chk_fail(void) {
  execution_fail(WEFT_OUTCOME_CRASH, WEFT_CALLER_PC(), "stack smashing detected (a local array overflowed)");
}

WEFT_HIDDEN void weft_exit(int status) { exit_at(status, WEFT_CALLER_PC()); }
WEFT_HIDDEN void weft__exit(int status) { exit_at(status, WEFT_CALLER_PC()); }
WEFT_HIDDEN void weft__Exit(int status) { exit_at(status, WEFT_CALLER_PC()); }

int weft_choose(int n) { return (int)sched_choose(n < 0 ? 0 : (uint32_t)n, WEFT_CALLER_PC()); }

/* Yielding and sleeping never wait: they let the other threads go first; a sleep moves the
 * virtual clock on by its duration (at least a microsecond, so that it is one). */
void weft_yield(void) { sched_yield_step(0, WEFT_CALLER_PC()); }

WEFT_HIDDEN int weft_sched_yield(void) {
  sched_yield_step(0, WEFT_CALLER_PC());
  return 0;
}

WEFT_HIDDEN int weft_usleep(unsigned microseconds) {
  sched_yield_step(microseconds ? microseconds : 1, WEFT_CALLER_PC());
  return 0;
}

WEFT_HIDDEN unsigned weft_sleep(unsigned seconds) {
  sched_yield_step(seconds ? seconds * 1000000ull : 1, WEFT_CALLER_PC());
  return 0;
}

/* a timespec's duration in whole microseconds, rounded up (at least one) */
uint64_t duration_microseconds(const struct timespec *duration) {
  if (!duration || duration->tv_sec < 0 || duration->tv_nsec < 0) return 1;
  uint64_t microseconds = (uint64_t)duration->tv_sec * 1000000u + ((uint64_t)duration->tv_nsec + 999u) / 1000u;
  return microseconds ? microseconds : 1;
}

WEFT_HIDDEN int weft_nanosleep(const struct timespec *request, struct timespec *remaining) {
  (void)remaining;
  uintptr_t pc = WEFT_CALLER_PC();
  harness_load(request, sizeof *request, pc);
  sched_yield_step(duration_microseconds(request), pc);
  return 0;
}

void weft_label(const char *format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  int length = vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (length < 0) return;
  char header[64];
  int header_length = snprintf(header, sizeof header, "[weft label T%u step %u] ",
                               weft_rt ? weft_rt->current : 0, weft_rt ? weft_rt->step : 0);
  output_append(header, (size_t)header_length);
  output_append(line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
  output_append("\n", 1);
}
