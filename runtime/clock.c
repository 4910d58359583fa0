/* Time and randomness made deterministic, and explored: the same schedule gives the same
 * execution, and what one thread's call returns may depend on another's. The clocks read a
 * virtual time that every clock read advances by a microsecond (more in a loop that polls it
 * alone: virtual_nanoseconds) and every sleep by its duration; rand() and random() draw from one generator reset to the same seed in every
 * execution. Both are state shared by all threads, as libc's are: each read of the time and
 * each draw or seeding of the generator is a step that writes its state (ops CLOCK and
 * RANDOM), so partial-order reduction orders them with each other and explores the orders:
 * which of two threads draws the first number, whose timestamp is earlier. A sleep's yield
 * step reads the clock (sched_yield_step): sleeps commute with each other, not with reads. */
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#include "runtime.h"

#define EPOCH_SECONDS 1700000000ull /* virtual wall-clock time at the start of every execution */
#define DEFAULT_SEED 1u

/* the most a read of the clock moves it on by: a loop polling it alone reaches a deadline a
 * day away in about 1,300 turns, far within maxSteps */
#define MAX_CLOCK_ADVANCE (1ull << 26)

void clock_reset(void) {
  weft_rt->random_state = DEFAULT_SEED;
  weft_rt->virtual_time = 0;
  weft_rt->clock_advance = 0;
  weft_rt->clock_read_step = 0;
}

/* Whether the current thread's last step before `step` that read the clock was the clock's
 * last read, and only it has run since: it polls the clock, alone. */
static int polling_alone(const struct runtime *r, uint32_t step) {
  if (r->clock_read_step == 0) return 0;
  for (uint32_t before = r->clock_read_step - 1; before < step; before++)
    if (r->trace.thread[before] != r->current) return 0;
  return 1;
}

/* A read of the clock, a step; the time read, in nanoseconds. Time moves on by a microsecond,
 * and by twice the last read's advance when the same thread read it last and ran alone since
 * (up to MAX_CLOCK_ADVANCE): a loop that waits for a deadline, polling the clock while no other
 * thread runs, reaches it in tens of turns instead of one per microsecond (the step bound ended
 * such a loop before, reported as a failure); no schedule promises how much time passes while
 * a thread runs alone. */
static uint64_t virtual_nanoseconds(uintptr_t pc) {
  struct runtime *r = weft_rt;
  sched_point(WEFT_OP_CLOCK, (uintptr_t)&r->virtual_time, 0, pc);
  /* time passes: a loop that reads it is never back where it was */
  spin_note_effect();
  uint32_t step = current_thread()->event;
  if (!polling_alone(r, step)) r->clock_advance = 1;
  else if (r->clock_advance < MAX_CLOCK_ADVANCE) r->clock_advance *= 2;
  r->clock_read_step = step + 1;
  r->virtual_time += r->clock_advance;
  sched_record_value(r->virtual_time, sizeof r->virtual_time);
  return r->virtual_time * 1000u;
}

uintptr_t clock_object(void) { return (uintptr_t)&weft_rt->virtual_time; }

void clock_sleep(uint64_t microseconds) { weft_rt->virtual_time += microseconds; }

WEFT_HIDDEN int weft_clock_gettime(clockid_t clock, struct timespec *now) {
  uintptr_t pc = WEFT_CALLER_PC();
  uint64_t ns = virtual_nanoseconds(pc);
  if (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE) ns += EPOCH_SECONDS * 1000000000ull;
  harness_store(now, sizeof *now, pc);
  now->tv_sec = (time_t)(ns / 1000000000u);
  now->tv_nsec = (long)(ns % 1000000000u);
  return 0;
}

WEFT_HIDDEN time_t weft_time(time_t *out) {
  uintptr_t pc = WEFT_CALLER_PC();
  time_t now = (time_t)(EPOCH_SECONDS + virtual_nanoseconds(pc) / 1000000000u);
  if (out) {
    harness_store(out, sizeof *out, pc);
    *out = now;
  }
  return now;
}

WEFT_HIDDEN int weft_gettimeofday(struct timeval *now, void *zone) {
  (void)zone;
  uintptr_t pc = WEFT_CALLER_PC();
  uint64_t us = EPOCH_SECONDS * 1000000u + virtual_nanoseconds(pc) / 1000u;
  harness_store(now, sizeof *now, pc);
  now->tv_sec = (time_t)(us / 1000000u);
  now->tv_usec = (suseconds_t)(us % 1000000u);
  return 0;
}

WEFT_HIDDEN clock_t weft_clock(void) { return (clock_t)(virtual_nanoseconds(WEFT_CALLER_PC()) / 1000u); }

/* a step on the generator: seeded again when `seeding`, else its next number (a 64-bit LCG, upper bits) */
static int random_step(int seeding, unsigned seed, uintptr_t pc) {
  struct runtime *r = weft_rt;
  sched_point(WEFT_OP_RANDOM, (uintptr_t)&r->random_state, 0, pc);
  spin_note_effect();
  if (seeding) r->random_state = seed;
  else r->random_state = r->random_state * 6364136223846793005ull + 1442695040888963407ull;
  int value = (int)(r->random_state >> 33);
  sched_record_value(seeding ? seed : (uint64_t)value, sizeof value);
  return value;
}

WEFT_HIDDEN int weft_rand(void) { return random_step(0, 0, WEFT_CALLER_PC()); }
WEFT_HIDDEN long weft_random(void) { return random_step(0, 0, WEFT_CALLER_PC()); }
WEFT_HIDDEN void weft_srand(unsigned seed) { random_step(1, seed, WEFT_CALLER_PC()); }
WEFT_HIDDEN void weft_srandom(unsigned seed) { random_step(1, seed, WEFT_CALLER_PC()); }
