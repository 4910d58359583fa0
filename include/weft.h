/* weft.h — the harness API. The only header a weft test includes.
 *
 *   #include <weft.h>
 *   WEFT_TEST(name) { ... }          one test; runs as thread 0 and may create pthreads
 *   weft_assert(cond)                 a failed check ends the execution as a bug
 *   weft_assert_msg(cond, fmt, ...)   the same with a printf-style message
 *   weft_choose(n)                    data nondeterminism: every value 0..n-1 is explored
 *   weft_yield()                      a spin-loop hint (sched_yield/usleep act the same)
 *   weft_label(fmt, ...)              a line that appears in traces
 */
#ifndef WEFT_H
#define WEFT_H

#ifdef __cplusplus
extern "C" {
#endif

struct weft_test_descriptor {
  const char *name;
  void (*body)(void);
  const char *file;
  int line;
};

#define WEFT_TESTS_SECTION weft_tests

/* Each test puts a descriptor into a dedicated section; the runtime walks it, so
 * registration needs no constructor and no global state. */
#define WEFT_TEST(test_name)                                                        \
  static void weft_test_body_##test_name(void);                                     \
  __attribute__((used, section("weft_tests"), aligned(sizeof(void *))))              \
  static const struct weft_test_descriptor weft_test_descriptor_##test_name = {      \
      #test_name, weft_test_body_##test_name, __FILE__, __LINE__};                   \
  static void weft_test_body_##test_name(void)

void weft_assert_fail(const char *expression, const char *file, int line, const char *format, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

#define weft_assert(cond) \
  ((cond) ? (void)0 : weft_assert_fail(#cond, __FILE__, __LINE__, (const char *)0))
#define weft_assert_msg(cond, ...) \
  ((cond) ? (void)0 : weft_assert_fail(#cond, __FILE__, __LINE__, __VA_ARGS__))

/* Returns a value in 0..n-1; every value is explored. n must be between 1 and 256. */
int weft_choose(int n);
void weft_yield(void);
void weft_label(const char *format, ...) __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif
