/* What the build found in the library's code and lists in sections of it, each as 32-bit
 * offsets from the library's base in ascending order (src/compile/code-tables.ts):
 *
 * - WEFT_UNUSED_RESULTS_SECTION: the return addresses of the atomic adds, subtracts, ors, ands
 *   and xors whose returned value the harness drops (nothing reads the result register after
 *   the call before it is overwritten). Such a step is op ATOMIC_ADD_UNUSED (or
 *   ATOMIC_OR_UNUSED, ...), which commutes with the others of its kind (ops.h: ADD, OR, AND,
 *   XOR).
 * - WEFT_QUIET_FUNCTIONS_SECTION: the entries of the functions from which no call reaches a
 *   thread create. A thread started there never creates one: its start step says so (its
 *   value is 1), and the graph engine then knows the thread numbering is safe from it.
 *
 * A library without a section lists nothing there, which is only slower. */
#include <elf.h>
#include <link.h>
#include <string.h>

#include "runtime.h"

/* The bytes of the section named `name`, or NULL; its size in `bytes`. */
static const unsigned char *section(const void *elf, size_t size, const char *name, size_t *bytes) {
  const char *file = elf;
  const ElfW(Ehdr) *header = elf;
  if (header->e_shstrndx == SHN_UNDEF || header->e_shstrndx >= header->e_shnum) return NULL;
  const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(file + header->e_shoff);
  const ElfW(Shdr) *names = &sections[header->e_shstrndx];
  if (names->sh_offset + names->sh_size > size) return NULL;
  for (size_t i = 0; i < header->e_shnum; i++) {
    const ElfW(Shdr) *candidate = &sections[i];
    if (candidate->sh_name >= names->sh_size || candidate->sh_offset + candidate->sh_size > size) continue;
    const char *candidate_name = file + names->sh_offset + candidate->sh_name;
    if (strnlen(candidate_name, names->sh_size - candidate->sh_name) == names->sh_size - candidate->sh_name) continue;
    if (strcmp(candidate_name, name) != 0) continue;
    *bytes = candidate->sh_size;
    return (const unsigned char *)file + candidate->sh_offset;
  }
  return NULL;
}

void results_open(const void *elf, size_t size) {
  struct runtime *r = weft_rt;
  size_t bytes = 0;
  r->unused_results = section(elf, size, WEFT_UNUSED_RESULTS_SECTION, &bytes);
  r->unused_result_count = r->unused_results ? bytes / sizeof(uint32_t) : 0;
  r->quiet_functions = section(elf, size, WEFT_QUIET_FUNCTIONS_SECTION, &bytes);
  r->quiet_function_count = r->quiet_functions ? bytes / sizeof(uint32_t) : 0;
}

/* Whether `address` is listed in `table`: a binary search, no allocation. */
static int listed(const unsigned char *table, size_t count, uintptr_t address) {
  uint32_t offset = (uint32_t)(address - weft_rt->library_base);
  size_t low = 0, high = count;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    uint32_t entry;
    memcpy(&entry, table + middle * sizeof(uint32_t), sizeof entry); /* the section may sit unaligned */
    if (entry == offset) return 1;
    if (entry < offset) low = middle + 1;
    else high = middle;
  }
  return 0;
}

/* Whether the call that returns to `pc` drops its result. */
int result_unused(uintptr_t pc) { return listed(weft_rt->unused_results, weft_rt->unused_result_count, pc); }

/* Whether no call from the function at `entry` reaches a thread create. */
int function_never_creates(uintptr_t entry) { return listed(weft_rt->quiet_functions, weft_rt->quiet_function_count, entry); }
