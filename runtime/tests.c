/* The tests of a harness: every WEFT_TEST descriptor in the weft_tests section, or,
 * in a file without any, its main() (renamed weft_user_main by the build). Each runs
 * after the harness's constructors. */
#include <stddef.h>

#include "runtime.h"

extern const struct weft_test_descriptor __start_weft_tests[] __attribute__((weak, visibility("hidden")));
extern const struct weft_test_descriptor __stop_weft_tests[] __attribute__((weak, visibility("hidden")));
extern int weft_user_main(int argc, char **argv) __attribute__((weak));

/* the harness's constructors, moved here by the build so that they run in every execution */
extern void (*const __start_weft_init_array[])(void) __attribute__((weak, visibility("hidden")));
extern void (*const __stop_weft_init_array[])(void) __attribute__((weak, visibility("hidden")));

static void main_placeholder(void) {}
static const struct weft_test_descriptor main_test = {"main", main_placeholder, "", 0};

static uint32_t declared_tests(void) {
  if (!__start_weft_tests || !__stop_weft_tests) return 0;
  return (uint32_t)(__stop_weft_tests - __start_weft_tests);
}

uint32_t tests_count(void) {
  uint32_t declared = declared_tests();
  if (declared) return declared;
  return weft_user_main ? 1 : 0;
}

const struct weft_test_descriptor *tests_get(uint32_t index) {
  if (declared_tests()) return &__start_weft_tests[index];
  return &main_test;
}

int tests_invoke(uint32_t index) {
  /* its return ends the process, not a frame another thread may still reach (stack_frame_end) */
  weft_rt->main_caller_frame = (uintptr_t)__builtin_frame_address(0);
  if (__start_weft_init_array)
    for (void (*const *constructor)(void) = __start_weft_init_array; constructor < __stop_weft_init_array; constructor++)
      (*constructor)();
  if (declared_tests()) {
    __start_weft_tests[index].body();
    return 0;
  }
  char program[] = "harness";
  char *argv[] = {program, NULL};
  return weft_user_main(1, argv);
}
