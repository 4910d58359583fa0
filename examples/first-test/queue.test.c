// queue.test.c: a small queue shared by threads, and two tests of it
#include <pthread.h>
#include <weft.h>

#define CAPACITY 4

struct queue {
  pthread_mutex_t lock;
  int items[CAPACITY];
  int head, count;
};

static struct queue q = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void push(int item) {
  pthread_mutex_lock(&q.lock);
  q.items[(q.head + q.count) % CAPACITY] = item;
  q.count++;
  pthread_mutex_unlock(&q.lock);
}

// takes the oldest item: 1, or 0 when the queue is empty
static int pop(int *item) {
  pthread_mutex_lock(&q.lock);
  int found = q.count > 0;
  if (found) {
    *item = q.items[q.head];
    q.head = (q.head + 1) % CAPACITY;
    q.count--;
  }
  pthread_mutex_unlock(&q.lock);
  return found;
}

static int size(void) {
  pthread_mutex_lock(&q.lock);
  int count = q.count;
  pthread_mutex_unlock(&q.lock);
  return count;
}

static void *producer(void *item) {
  push(*(int *)item);
  return NULL;
}

static void *consumer(void *unused) {
  int item;
  if (size() > 0)              // check, then act: another consumer may take it in between
    weft_assert(pop(&item));
  return unused;
}

WEFT_TEST(two_producers) {
  int one = 1, two = 2, first, second;
  pthread_t a, b;
  pthread_create(&a, NULL, producer, &one);
  pthread_create(&b, NULL, producer, &two);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  weft_assert(pop(&first) && pop(&second));
  weft_assert(first + second == 3);
}

WEFT_TEST(two_consumers) {
  push(7);
  pthread_t a, b;
  pthread_create(&a, NULL, consumer, NULL);
  pthread_create(&b, NULL, consumer, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}
