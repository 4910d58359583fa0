/* What an execution that reached maxSteps was doing. When a thread went on right after it
 * yielded while another could run, somewhere in its last steps, it is cut (pruned, no bug):
 * it goes on only because the schedule keeps passing over a thread that gave way, which no
 * fair scheduler does; the schedules that let the others run there are explored beside it.
 * It is a livelock when its last steps go round a cycle in which every step's effect is in
 * the trace (values read and written, yields): the same steps with the same values, so
 * nothing changes and nothing ever will. Otherwise (a cycle of lock and unlock may hide
 * plain writes in drf mode, a counter counts up) it only needed more steps than maxSteps
 * allows: a step limit. */
#include "runtime.h"

#define CYCLE_WINDOW 1024u /* the last steps examined */

static int effect_in_trace(uint8_t op) {
  return (op_flags[op] & WEFT_OPF_VALUE) || op_access[op] == WEFT_ACCESS_NONE;
}

static int same_step(const struct weft_trace *trace, uint32_t a, uint32_t b) {
  return trace->thread[a] == trace->thread[b] && trace->op[a] == trace->op[b] &&
         trace->object[a] == trace->object[b] && trace->value[a] == trace->value[b] && trace->pc[a] == trace->pc[b];
}

static int repeats_with_period(const struct weft_trace *trace, uint32_t start, uint32_t end, uint32_t period) {
  for (uint32_t step = start; step < end; step++)
    if (!same_step(trace, step, step - period)) return 0;
  return 1;
}

/* Whether the thread that took `step` had set itself aside at its step before (a choice
 * step between them is no scheduling point) and another thread could have run instead. */
static int went_on_past_yield(const struct runtime *r, uint32_t step) {
  const struct weft_trace *trace = &r->trace;
  uint32_t thread = trace->thread[step];
  uint32_t before = step;
  while (before > 0 && trace->op[--before] == WEFT_OP_CHOOSE) {}
  if (before == step || trace->thread[before] != thread || !(trace->aside[before] & WEFT_ASIDE_DURING)) return 0;
  return set_has_other(trace_enabled(r, step), thread_words(r->thread_count), thread);
}

uint32_t step_limit_outcome(const struct runtime *r) {
  uint32_t end = r->step;
  uint32_t window = end / 2 < CYCLE_WINDOW ? end / 2 : CYCLE_WINDOW;
  uint32_t start = end - window; /* at least `window` steps before it to compare with */
  for (uint32_t step = start; step < end; step++)
    if (r->trace.op[step] != WEFT_OP_CHOOSE && went_on_past_yield(r, step)) return WEFT_OUTCOME_PRUNED;
  if (window < 2) return WEFT_OUTCOME_STEP_LIMIT;
  for (uint32_t step = start; step < end; step++)
    if (!effect_in_trace(r->trace.op[step])) return WEFT_OUTCOME_STEP_LIMIT;
  for (uint32_t period = 1; period <= window; period++)
    if (repeats_with_period(&r->trace, start, end, period)) return WEFT_OUTCOME_LIVELOCK;
  return WEFT_OUTCOME_STEP_LIMIT;
}
