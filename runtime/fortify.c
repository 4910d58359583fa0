/* _FORTIFY_SOURCE's checked variants of the memory and string functions, which a harness
 * built with -D_FORTIFY_SOURCE calls instead of the plain ones: weft's checks, as for those,
 * and the size of the destination the compiler knew (`object`, (size_t)-1 when it did not). A
 * write past it is a memory bug of the execution, where libc would abort the whole process. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

static void fits(size_t n, size_t object, uintptr_t pc) {
  if (object != (size_t)-1 && n > object)
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "buffer overflow: %zu bytes written into an object of %zu bytes", n, object);
}

WEFT_HIDDEN void *weft___memcpy_chk(void *destination, const void *source, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  copy_access(destination, source, n, pc);
  return memcpy(destination, source, n);
}

WEFT_HIDDEN void *weft___memmove_chk(void *destination, const void *source, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  copy_access(destination, source, n, pc);
  return memmove(destination, source, n);
}

WEFT_HIDDEN void *weft___memset_chk(void *destination, int c, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  memory_access(1, destination, n, pc);
  return memset(destination, c, n);
}

WEFT_HIDDEN char *weft___strcpy_chk(char *destination, const char *source, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t n = strlen(source) + 1;
  fits(n, object, pc);
  return checked_copy(destination, source, n, pc);
}

WEFT_HIDDEN char *weft___stpcpy_chk(char *destination, const char *source, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t length = strlen(source);
  fits(length + 1, object, pc);
  checked_copy(destination, source, length + 1, pc);
  return destination + length;
}

WEFT_HIDDEN void *weft___mempcpy_chk(void *destination, const void *source, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  return checked_mempcpy(destination, source, n, pc);
}

WEFT_HIDDEN char *weft___stpncpy_chk(char *destination, const char *source, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  return checked_stpncpy(destination, source, n, pc);
}

WEFT_HIDDEN void weft___explicit_bzero_chk(void *destination, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  checked_bzero(destination, n, pc);
}

WEFT_HIDDEN char *weft___strcat_chk(char *destination, const char *source, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(strlen(destination) + strlen(source) + 1, object, pc);
  return checked_strcat(destination, source, pc);
}

WEFT_HIDDEN char *weft___strncpy_chk(char *destination, const char *source, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  return checked_strncpy(destination, source, n, pc);
}

WEFT_HIDDEN char *weft___strncat_chk(char *destination, const char *source, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(strlen(destination) + strnlen(source, n) + 1, object, pc);
  return checked_strncat(destination, source, n, pc);
}

/* sprintf's: what it would write must fit the object; snprintf's: its size must */
static int formatted_into(char *destination, size_t size, size_t object, uintptr_t pc, const char *format, va_list args) {
  if (size != SPRINTF_SIZE) fits(size, object, pc);
  else {
    int length = formatted_length(format, args);
    if (length >= 0) fits((size_t)length + 1, object, pc);
  }
  return format_into(destination, size, pc, format, args);
}

WEFT_HIDDEN int weft___vsprintf_chk(char *destination, int flag, size_t object, const char *format, va_list args) {
  (void)flag;
  return formatted_into(destination, SPRINTF_SIZE, object, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft___sprintf_chk(char *destination, int flag, size_t object, const char *format, ...) {
  (void)flag;
  va_list args;
  va_start(args, format);
  int length = formatted_into(destination, SPRINTF_SIZE, object, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

WEFT_HIDDEN int weft___vsnprintf_chk(char *destination, size_t size, int flag, size_t object, const char *format, va_list args) {
  (void)flag;
  return formatted_into(destination, size, object, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft___snprintf_chk(char *destination, size_t size, int flag, size_t object, const char *format, ...) {
  (void)flag;
  va_list args;
  va_start(args, format);
  int length = formatted_into(destination, size, object, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

WEFT_HIDDEN char *weft___fgets_chk(char *into, size_t object, int size, FILE *stream) {
  uintptr_t pc = WEFT_CALLER_PC();
  if (size > 0) fits((size_t)size, object, pc);
  return checked_fgets(into, size, stream, pc);
}

WEFT_HIDDEN size_t weft___fread_chk(void *into, size_t object, size_t size, size_t count, FILE *stream) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(size * count, object, pc);
  return checked_fread(into, size, count, stream, pc);
}

/* read's and pread's: the count asked for must fit, as libc checks (what they return is checked as the plain calls') */
WEFT_HIDDEN ssize_t weft___read_chk(int fd, void *into, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  return checked_read(into, read(fd, into, n), pc);
}

WEFT_HIDDEN ssize_t weft___pread_chk(int fd, void *into, size_t n, off_t offset, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  return checked_read(into, pread(fd, into, n, offset), pc);
}

WEFT_HIDDEN ssize_t weft___pread64_chk(int fd, void *into, size_t n, off64_t offset, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  return checked_read(into, pread64(fd, into, n, offset), pc);
}
