/* Time and randomness made deterministic: the clocks read a virtual time that advances
 * one microsecond per step, and rand()/random() start from the same seed in every
 * execution — so the same schedule gives the same execution. */
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#include "runtime.h"

#define EPOCH_SECONDS 1700000000ull /* virtual wall-clock time at the start of every execution */
#define DEFAULT_SEED 1u

/* time passes with every step: a loop that reads it is never back where it was */
static uint64_t virtual_nanoseconds(void) {
  spin_note_effect();
  return (uint64_t)weft_rt->step * 1000u;
}

void clock_reset(void) { weft_rt->random_state = DEFAULT_SEED; }

WEFT_HIDDEN int weft_clock_gettime(clockid_t clock, struct timespec *now) {
  uint64_t ns = virtual_nanoseconds();
  if (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE) ns += EPOCH_SECONDS * 1000000000ull;
  now->tv_sec = (time_t)(ns / 1000000000u);
  now->tv_nsec = (long)(ns % 1000000000u);
  return 0;
}

WEFT_HIDDEN time_t weft_time(time_t *out) {
  time_t now = (time_t)(EPOCH_SECONDS + virtual_nanoseconds() / 1000000000u);
  if (out) *out = now;
  return now;
}

WEFT_HIDDEN int weft_gettimeofday(struct timeval *now, void *zone) {
  (void)zone;
  uint64_t us = EPOCH_SECONDS * 1000000u + virtual_nanoseconds() / 1000u;
  now->tv_sec = (time_t)(us / 1000000u);
  now->tv_usec = (suseconds_t)(us % 1000000u);
  return 0;
}

WEFT_HIDDEN clock_t weft_clock(void) { return (clock_t)(virtual_nanoseconds() / 1000u); }

/* one generator for rand() and random(): a 64-bit LCG, upper bits */
static int next_random(void) {
  struct runtime *r = weft_rt;
  spin_note_effect();
  r->random_state = r->random_state * 6364136223846793005ull + 1442695040888963407ull;
  return (int)(r->random_state >> 33);
}

WEFT_HIDDEN int weft_rand(void) { return next_random(); }
WEFT_HIDDEN long weft_random(void) { return next_random(); }
WEFT_HIDDEN void weft_srand(unsigned seed) { weft_rt->random_state = seed; }
WEFT_HIDDEN void weft_srandom(unsigned seed) { weft_rt->random_state = seed; }
