// weft: maxBound=3
// Two threads push while the main thread pops: every value comes out at most once, and
// what is left is exactly what was not popped.
#include <pthread.h>
#include <weft.h>

#include "stack.h"

static struct stack stack;

static void *push(void *value) {
  stack_push(&stack, (int)(long)value);
  return NULL;
}

WEFT_TEST(concurrent_push_and_pop) {
  pthread_t a, b;
  pthread_create(&a, NULL, push, (void *)1L);
  pthread_create(&b, NULL, push, (void *)2L);
  int first = stack_pop(&stack);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  int second = stack_pop(&stack);
  int third = stack_pop(&stack);
  weft_assert_msg(first != second || first == STACK_EMPTY, "popped %d twice", first);
  weft_assert(third == STACK_EMPTY || first == STACK_EMPTY);
}

static void *pop(void *result) {
  *(int *)result = stack_pop(&stack);
  return NULL;
}

WEFT_TEST(two_concurrent_pops) {
  stack_push(&stack, 1);
  stack_push(&stack, 2);
  int a, b;
  pthread_t t;
  pthread_create(&t, NULL, pop, &a);
  pop(&b);
  pthread_join(t, NULL);
  weft_assert_msg(a != b, "both pops returned %d", a);
}
