/* Thread-local variables (__thread, _Thread_local) of the harness library. Its calls to
 * __tls_get_addr are redirected here: each harness thread has its own copy of the
 * library's TLS block, filled from the PT_TLS template when the thread is created, so
 * every thread of every execution starts from the variables' initial values. Other
 * modules' TLS (libc's, which the harness reaches through libc calls) is served by the
 * real __tls_get_addr. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

/* The argument of __tls_get_addr (the x86-64 ABI's tls_index). */
struct tls_index {
  unsigned long module;
  unsigned long offset;
};

extern void *__tls_get_addr(struct tls_index *index);

static int find_tls_segment(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct tls_blocks *tls = data;
  if (info->dlpi_addr != weft_rt->library_base) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_TLS) continue;
    size_t align = ph->p_align > 16 ? ph->p_align : 16;
    tls->module = info->dlpi_tls_modid;
    tls->image = (const char *)(info->dlpi_addr + ph->p_vaddr);
    tls->image_size = ph->p_filesz;
    tls->block_size = (ph->p_memsz + align - 1) / align * align;
  }
  return 1;
}

int tls_open(char *error, uint32_t error_size) {
  struct tls_blocks *tls = &weft_rt->tls;
  dl_iterate_phdr(find_tls_segment, tls);
  if (tls->block_size == 0) return 0; /* the harness has no thread-local variables */
  void *memory = mmap(NULL, tls->block_size * WEFT_MAX_THREADS, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) {
    snprintf(error, error_size, "cannot map thread-local storage: %s", strerror(errno));
    return -1;
  }
  tls->blocks = memory;
  return 0;
}

static inline char *block_of(const struct tls_blocks *tls, uint32_t thread) {
  return tls->blocks + (size_t)thread * tls->block_size;
}

void tls_thread_start(uint32_t thread) {
  const struct tls_blocks *tls = &weft_rt->tls;
  if (!tls->blocks) return;
  char *block = block_of(tls, thread);
  memcpy(block, tls->image, tls->image_size);
  memset(block + tls->image_size, 0, tls->block_size - tls->image_size);
}

/* An access to another thread's thread-local copy once that thread has ended: its variables'
 * lifetime was the thread's (C11 7.26.5.5), whatever still lies there. */
void tls_check_live(uintptr_t address, uint32_t size, int write, uintptr_t pc) {
  const struct runtime *r = weft_rt;
  uint32_t owner = tls_owner(r, address);
  if (owner != r->current && r->threads[owner].state == THREAD_FINISHED)
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "use after thread end: %u-byte %s at %p, a thread-local variable of thread %u, which has ended",
                   size, write ? "write" : "read", (void *)address, owner);
}

/* The current thread ends (thread_finish), and its thread-local variables with it: another
 * thread's access to them that did not happen before is a use after thread end in another
 * order (race.c), found so in every order, as a return's is. drf mode only: sc mode has no
 * happens-before. */
void tls_thread_end(uintptr_t pc) {
  const struct runtime *r = weft_rt;
  if (!r->tls.blocks || !detecting_races(r)) return;
  race_on_thread_end((uintptr_t)block_of(&r->tls, r->current), (uint32_t)r->tls.block_size, pc);
}

WEFT_HIDDEN void *weft___tls_get_addr(struct tls_index *index) {
  struct runtime *r = weft_rt;
  /* before weft_runtime_open (constructors) or between executions: the real storage */
  if (!r || !r->in_execution || !r->tls.blocks || index->module != r->tls.module) return __tls_get_addr(index);
  return block_of(&r->tls, r->current) + index->offset;
}
