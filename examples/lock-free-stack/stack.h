// A lock-free (Treiber) stack of ints over a fixed pool of nodes: push and pop with a
// compare-and-swap on the top pointer. Nodes are never reused within a test, so the
// ABA problem cannot arise here.
#include <stdatomic.h>
#include <stddef.h>

#define STACK_CAPACITY 8
#define STACK_EMPTY (-1)

struct node {
  int value;
  struct node *next;
};

struct stack {
  struct node *_Atomic top;
  struct node pool[STACK_CAPACITY];
  atomic_int used;
};

static inline void stack_push(struct stack *s, int value) {
  struct node *node = &s->pool[atomic_fetch_add(&s->used, 1)];
  node->value = value;
  struct node *top = atomic_load(&s->top);
  do node->next = top;
  while (!atomic_compare_exchange_weak(&s->top, &top, node));
}

static inline int stack_pop(struct stack *s) {
  struct node *top = atomic_load(&s->top);
#ifdef STACK_BUGGY_POP
  // the bug: take the node first, unlink it later with a plain store
  if (!top) return STACK_EMPTY;
  atomic_store(&s->top, top->next);
  return top->value;
#else
  while (top && !atomic_compare_exchange_weak(&s->top, &top, top->next)) {
  }
  return top ? top->value : STACK_EMPTY;
#endif
}
