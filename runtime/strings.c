/* The string functions: each checks the bytes it will read and write against the heap (use
 * after free, out of bounds) and for races, as memcpy does, before libc does the work — so
 * that strcpy or sprintf past the end of a block is a reported bug, not silent corruption,
 * and strlen of a freed block or memcmp past the end of one is not a silent pass. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <wchar.h>

#include "runtime.h"

static size_t bounded_length(const char *text, size_t limit) {
  const char *end = memchr(text, 0, limit);
  return end ? (size_t)(end - text) : limit;
}

char *checked_copy(char *destination, const char *source, size_t n, uintptr_t pc) {
  copy_access(destination, source, n, pc);
  return memcpy(destination, source, n);
}

WEFT_HIDDEN char *weft_strcpy(char *destination, const char *source) {
  return checked_copy(destination, source, strlen(source) + 1, WEFT_CALLER_PC());
}

WEFT_HIDDEN char *weft_stpcpy(char *destination, const char *source) {
  size_t length = strlen(source);
  checked_copy(destination, source, length + 1, WEFT_CALLER_PC());
  return destination + length;
}

char *checked_strcat(char *destination, const char *source, uintptr_t pc) {
  size_t end = strlen(destination);
  memory_access(0, destination, end + 1, pc);
  checked_copy(destination + end, source, strlen(source) + 1, pc);
  return destination;
}

WEFT_HIDDEN char *weft_strcat(char *destination, const char *source) { return checked_strcat(destination, source, WEFT_CALLER_PC()); }

/* strncpy's and stpncpy's: the source up to its 0 (or n bytes), and n bytes written (they pad with zeros up to n) */
static void padded_copy_access(char *destination, const char *source, size_t n, uintptr_t pc) {
  size_t length = bounded_length(source, n);
  memory_access(0, source, length < n ? length + 1 : n, pc);
  memory_access(1, destination, n, pc);
}

char *checked_strncpy(char *destination, const char *source, size_t n, uintptr_t pc) {
  padded_copy_access(destination, source, n, pc);
  return strncpy(destination, source, n);
}

WEFT_HIDDEN char *weft_strncpy(char *destination, const char *source, size_t n) { return checked_strncpy(destination, source, n, WEFT_CALLER_PC()); }

char *checked_stpncpy(char *destination, const char *source, size_t n, uintptr_t pc) {
  padded_copy_access(destination, source, n, pc);
  return stpncpy(destination, source, n);
}

WEFT_HIDDEN char *weft_stpncpy(char *destination, const char *source, size_t n) { return checked_stpncpy(destination, source, n, WEFT_CALLER_PC()); }

char *checked_mempcpy(void *destination, const void *source, size_t n, uintptr_t pc) {
  return checked_copy(destination, source, n, pc) + n;
}

WEFT_HIDDEN void *weft_mempcpy(void *destination, const void *source, size_t n) { return checked_mempcpy(destination, source, n, WEFT_CALLER_PC()); }

/* memccpy copies up to the first c, included, or n bytes */
WEFT_HIDDEN void *weft_memccpy(void *destination, const void *source, int c, size_t n) {
  const unsigned char *found = memchr(source, c, n);
  copy_access(destination, source, found ? (size_t)(found - (const unsigned char *)source) + 1 : n, WEFT_CALLER_PC());
  return memccpy(destination, source, c, n);
}

/* bzero and explicit_bzero write n zeros (memset is memory.c's) */
void checked_bzero(void *destination, size_t n, uintptr_t pc) {
  memory_access(1, destination, n, pc);
  explicit_bzero(destination, n);
}

WEFT_HIDDEN void weft_bzero(void *destination, size_t n) { checked_bzero(destination, n, WEFT_CALLER_PC()); }

WEFT_HIDDEN void weft_explicit_bzero(void *destination, size_t n) { checked_bzero(destination, n, WEFT_CALLER_PC()); }

char *checked_strncat(char *destination, const char *source, size_t n, uintptr_t pc) {
  size_t end = strlen(destination);
  size_t length = bounded_length(source, n);
  memory_access(0, destination, end + 1, pc);
  memory_access(0, source, length, pc);
  memory_access(1, destination + end, length + 1, pc);
  return strncat(destination, source, n);
}

WEFT_HIDDEN char *weft_strncat(char *destination, const char *source, size_t n) { return checked_strncat(destination, source, n, WEFT_CALLER_PC()); }

/* The harness's memory a printf-style call reads or writes through its arguments: each %s
 * string (up to its 0, or its precision) and each %n target, checked as one access each; the
 * other arguments are taken off a copy of the list by their types. Positional arguments
 * (%1$s) and a conversion not known here stop the walk: what follows is not checked. */
void format_accesses(const char *format, va_list args, uintptr_t pc) {
  va_list walk;
  va_copy(walk, args);
  for (const char *at = format; *at; at++) {
    if (*at != '%') continue;
    at++;
    while (*at && strchr("-+ #0'I", *at)) at++;
    if (*at == '*') {
      (void)va_arg(walk, int);
      at++;
    }
    while (*at >= '0' && *at <= '9') at++;
    if (*at == '$') break;
    long precision = -1;
    if (*at == '.') {
      at++;
      if (*at == '*') {
        precision = va_arg(walk, int);
        at++;
      } else for (precision = 0; *at >= '0' && *at <= '9'; at++) precision = precision * 10 + (*at - '0');
    }
    int longs = 0, shorts = 0, wide = 0;
    for (;; at++) {
      if (*at == 'l') longs++;
      else if (*at == 'h') shorts++;
      else if (*at == 'j' || *at == 'z' || *at == 't' || *at == 'q') longs = 1;
      else if (*at == 'L') wide = 1;
      else break;
    }
    switch (*at) {
      case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'b': case 'B':
        if (longs || wide) (void)va_arg(walk, long long);
        else (void)va_arg(walk, int);
        break;
      case 'c': case 'C':
        (void)va_arg(walk, int);
        break;
      case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
        if (wide) (void)va_arg(walk, long double);
        else (void)va_arg(walk, double);
        break;
      case 'p':
        (void)va_arg(walk, void *);
        break;
      case 'S':
      case 's': {
        if (longs || *at == 'S') {
          const wchar_t *text = va_arg(walk, const wchar_t *);
          if (text) memory_access(0, text, (wcslen(text) + 1) * sizeof(wchar_t), pc);
          break;
        }
        const char *text = va_arg(walk, const char *);
        if (!text) break;
        size_t length = precision >= 0 ? strnlen(text, (size_t)precision) : strlen(text);
        memory_access(0, text, precision >= 0 && length == (size_t)precision ? length : length + 1, pc);
        break;
      }
      case 'n': {
        void *target = va_arg(walk, void *);
        memory_access(1, target, shorts == 2 ? sizeof(char) : shorts ? sizeof(short) : longs ? sizeof(long long) : sizeof(int), pc);
        break;
      }
      case '%':
      case 'm':
        break;
      default: /* a lone % at the end, or a conversion not known here: where the arguments go next is not known */
        va_end(walk);
        return;
    }
  }
  va_end(walk);
}

/* what vsnprintf would write for the format, without the 0 (negative: an error), on a copy of the list */
int formatted_length(const char *format, va_list args) {
  va_list measure;
  va_copy(measure, args);
  int length = vsnprintf(NULL, 0, format, measure);
  va_end(measure);
  return length;
}

/* vsnprintf, the bytes it will write into a buffer of `size` (at most size, with the 0) checked first */
int format_into(char *destination, size_t size, uintptr_t pc, const char *format, va_list args) {
  format_accesses(format, args, pc);
  int length = formatted_length(format, args);
  if (length >= 0) {
    size_t written = (size_t)length + 1;
    memory_access(1, destination, written < size ? written : size, pc);
  }
  return vsnprintf(destination, size, format, args);
}

WEFT_HIDDEN int weft_vsnprintf(char *destination, size_t size, const char *format, va_list args) {
  return format_into(destination, size, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft_vsprintf(char *destination, const char *format, va_list args) {
  return format_into(destination, SPRINTF_SIZE, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft_snprintf(char *destination, size_t size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = format_into(destination, size, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

WEFT_HIDDEN int weft_sprintf(char *destination, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = format_into(destination, SPRINTF_SIZE, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

/* The string and memory functions that read: each checks the bytes its result depends on
 * (up to the terminating 0, the first difference, the byte found) as one read, before libc
 * reads them again for the result, so a read of a freed or too short block, or one racing
 * with a write, is a reported bug, not a silent pass. */
static void read_access(const void *source, size_t n, uintptr_t pc) { memory_access(0, source, n, pc); }

WEFT_HIDDEN size_t weft_strlen(const char *text) {
  read_access(text, strlen(text) + 1, WEFT_CALLER_PC());
  return strlen(text);
}

WEFT_HIDDEN size_t weft_strnlen(const char *text, size_t limit) {
  size_t length = strnlen(text, limit);
  read_access(text, length < limit ? length + 1 : limit, WEFT_CALLER_PC());
  return strnlen(text, limit);
}

enum comparison { BYTES, STRINGS, FOLDED_STRINGS /* strcasecmp's: upper and lower case alike */ };

/* the bytes of each side a comparison of at most `limit` bytes reads: up to the first that differs, or a 0 for strings */
static size_t compared(const unsigned char *a, const unsigned char *b, size_t limit, enum comparison how) {
  size_t i = 0;
  while (i < limit && (how == FOLDED_STRINGS ? tolower(a[i]) == tolower(b[i]) : a[i] == b[i]) && !(how != BYTES && a[i] == 0)) i++;
  return i < limit ? i + 1 : limit;
}

static void compare_access(const void *a, const void *b, size_t limit, enum comparison how, uintptr_t pc) {
  size_t n = compared(a, b, limit, how);
  read_access(a, n, pc);
  read_access(b, n, pc);
}

WEFT_HIDDEN int weft_strcmp(const char *a, const char *b) {
  compare_access(a, b, (size_t)-1, STRINGS, WEFT_CALLER_PC());
  return strcmp(a, b);
}

WEFT_HIDDEN int weft_strncmp(const char *a, const char *b, size_t limit) {
  compare_access(a, b, limit, STRINGS, WEFT_CALLER_PC());
  return strncmp(a, b, limit);
}

WEFT_HIDDEN int weft_memcmp(const void *a, const void *b, size_t n) {
  compare_access(a, b, n, BYTES, WEFT_CALLER_PC());
  return memcmp(a, b, n);
}

WEFT_HIDDEN int weft_strcasecmp(const char *a, const char *b) {
  compare_access(a, b, (size_t)-1, FOLDED_STRINGS, WEFT_CALLER_PC());
  return strcasecmp(a, b);
}

WEFT_HIDDEN int weft_strncasecmp(const char *a, const char *b, size_t limit) {
  compare_access(a, b, limit, FOLDED_STRINGS, WEFT_CALLER_PC());
  return strncasecmp(a, b, limit);
}

/* a locale's collation weighs whole strings (in the C locale strcoll stops at the first difference, as strcmp: checked as reading them whole all the same) */
WEFT_HIDDEN int weft_strcoll(const char *a, const char *b) {
  uintptr_t pc = WEFT_CALLER_PC();
  read_access(a, strlen(a) + 1, pc);
  read_access(b, strlen(b) + 1, pc);
  return strcoll(a, b);
}

/* strxfrm reads the whole source (it returns its transformed length) and writes at most n bytes */
WEFT_HIDDEN size_t weft_strxfrm(char *destination, const char *source, size_t n) {
  uintptr_t pc = WEFT_CALLER_PC();
  read_access(source, strlen(source) + 1, pc);
  size_t length = strxfrm(NULL, source, 0);
  memory_access(1, destination, length < n ? length + 1 : n, pc);
  return strxfrm(destination, source, n);
}

WEFT_HIDDEN void *weft_memchr(const void *source, int c, size_t n) {
  const unsigned char *found = memchr(source, c, n);
  read_access(source, found ? (size_t)(found - (const unsigned char *)source) + 1 : n, WEFT_CALLER_PC());
  return memchr(source, c, n);
}

static char *checked_strchr(const char *text, int c, uintptr_t pc) {
  const char *found = strchr(text, c);
  read_access(text, found && *found ? (size_t)(found - text) + 1 : strlen(text) + 1, pc);
  return strchr(text, c);
}

WEFT_HIDDEN char *weft_strchr(const char *text, int c) { return checked_strchr(text, c, WEFT_CALLER_PC()); }

WEFT_HIDDEN char *weft_index(const char *text, int c) { return checked_strchr(text, c, WEFT_CALLER_PC()); }

static char *checked_strrchr(const char *text, int c, uintptr_t pc) {
  read_access(text, strlen(text) + 1, pc);
  return strrchr(text, c);
}

WEFT_HIDDEN char *weft_strrchr(const char *text, int c) { return checked_strrchr(text, c, WEFT_CALLER_PC()); }

WEFT_HIDDEN char *weft_rindex(const char *text, int c) { return checked_strrchr(text, c, WEFT_CALLER_PC()); }

/* strspn, strcspn and strpbrk read the text up to the byte that ends the span (n bytes in), and the whole set */
static void span_access(const char *text, size_t n, const char *set, uintptr_t pc) {
  read_access(text, n + 1, pc);
  read_access(set, strlen(set) + 1, pc);
}

WEFT_HIDDEN size_t weft_strspn(const char *text, const char *accept) {
  span_access(text, strspn(text, accept), accept, WEFT_CALLER_PC());
  return strspn(text, accept);
}

WEFT_HIDDEN size_t weft_strcspn(const char *text, const char *reject) {
  span_access(text, strcspn(text, reject), reject, WEFT_CALLER_PC());
  return strcspn(text, reject);
}

WEFT_HIDDEN char *weft_strpbrk(const char *text, const char *accept) {
  span_access(text, strcspn(text, accept), accept, WEFT_CALLER_PC());
  return strpbrk(text, accept);
}

/* strsep: *where read and written; the token up to its delimiter, or its 0, read; the delimiter overwritten with a 0 */
WEFT_HIDDEN char *weft_strsep(char **where, const char *delimiters) {
  uintptr_t pc = WEFT_CALLER_PC();
  read_access(where, sizeof *where, pc);
  char *text = *where;
  if (text) {
    size_t n = strcspn(text, delimiters);
    span_access(text, n, delimiters, pc);
    if (text[n]) memory_access(1, text + n, 1, pc);
    memory_access(1, where, sizeof *where, pc);
  }
  return strsep(where, delimiters);
}

/* strtok_r (glibc's): the text (or *saved) read past the delimiters before the token and up to
 * the one after it, that one overwritten with a 0, and *saved written */
WEFT_HIDDEN char *weft_strtok_r(char *text, const char *delimiters, char **saved) {
  uintptr_t pc = WEFT_CALLER_PC();
  if (!text) {
    read_access(saved, sizeof *saved, pc);
    text = *saved;
  }
  char *token = text + strspn(text, delimiters);
  char *end = *token ? token + strcspn(token, delimiters) : token;
  span_access(text, (size_t)(end - text), delimiters, pc);
  if (*end) memory_access(1, end, 1, pc);
  memory_access(1, saved, sizeof *saved, pc);
  return strtok_r(text, delimiters, saved);
}

/* memmem reads the needle and the haystack up to the end of the match, or all of it */
WEFT_HIDDEN void *weft_memmem(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length) {
  uintptr_t pc = WEFT_CALLER_PC();
  const char *found = memmem(haystack, haystack_length, needle, needle_length);
  read_access(needle, needle_length, pc);
  read_access(haystack, found ? (size_t)(found - (const char *)haystack) + needle_length : haystack_length, pc);
  return memmem(haystack, haystack_length, needle, needle_length);
}

/* The number parsers read the characters of the number and the one that ended it (with no
 * number, the white space and sign they skipped and the next one: as AddressSanitizer counts
 * them), and write *end. Each is run once to find where it stops, then for its result. */
static void parse_access(const char *text, const char *stop, char **end, uintptr_t pc) {
  if (stop == text) {
    while (isspace((unsigned char)*stop)) stop++;
    if (*stop == '+' || *stop == '-') stop++;
  }
  read_access(text, (size_t)(stop - text) + 1, pc);
  if (end) memory_access(1, end, sizeof *end, pc);
}

#define CHECKED_INTEGER(type, name)                                                          \
  static type checked_##name(const char *text, char **end, int base, uintptr_t pc) {         \
    char *stop;                                                                              \
    int saved_errno = errno;                                                                 \
    (void)name(text, &stop, base);                                                           \
    errno = saved_errno;                                                                     \
    parse_access(text, stop, end, pc);                                                       \
    return name(text, end, base);                                                            \
  }                                                                                          \
  WEFT_HIDDEN type weft_##name(const char *text, char **end, int base) { return checked_##name(text, end, base, WEFT_CALLER_PC()); }

#define CHECKED_FLOATING(type, name)                                                         \
  WEFT_HIDDEN type weft_##name(const char *text, char **end) {                               \
    uintptr_t pc = WEFT_CALLER_PC();                                                         \
    char *stop;                                                                              \
    int saved_errno = errno;                                                                 \
    (void)name(text, &stop);                                                                 \
    errno = saved_errno;                                                                     \
    parse_access(text, stop, end, pc);                                                       \
    return name(text, end);                                                                  \
  }

CHECKED_INTEGER(long, strtol)
CHECKED_INTEGER(unsigned long, strtoul)
CHECKED_INTEGER(long long, strtoll)
CHECKED_INTEGER(unsigned long long, strtoull)
CHECKED_FLOATING(double, strtod)
CHECKED_FLOATING(float, strtof)
CHECKED_FLOATING(long double, strtold)

/* glibc's atoi, atol and atoll are strtol's and strtoll's, in base 10 */
WEFT_HIDDEN int weft_atoi(const char *text) { return (int)checked_strtol(text, NULL, 10, WEFT_CALLER_PC()); }

WEFT_HIDDEN long weft_atol(const char *text) { return checked_strtol(text, NULL, 10, WEFT_CALLER_PC()); }

WEFT_HIDDEN long long weft_atoll(const char *text) { return checked_strtoll(text, NULL, 10, WEFT_CALLER_PC()); }

/* strerror_r writes its message into the buffer, cut to its size, when it has no static one to
 * return (GNU's: an unknown error number) or always (POSIX's, __xpg_strerror_r): the message is
 * found first in a buffer of weft's */
static void message_access(const char *message, char *into, size_t size, uintptr_t pc) {
  size_t length = strlen(message) + 1;
  memory_access(1, into, length < size ? length : size, pc);
}

WEFT_HIDDEN char *weft_strerror_r(int number, char *into, size_t size) {
  char message[256];
  if (strerror_r(number, message, sizeof message) == message) message_access(message, into, size, WEFT_CALLER_PC());
  return strerror_r(number, into, size);
}

extern int xpg_strerror_r(int, char *, size_t) __asm__("__xpg_strerror_r");

WEFT_HIDDEN int weft___xpg_strerror_r(int number, char *into, size_t size) {
  char message[256];
  xpg_strerror_r(number, message, sizeof message);
  message_access(message, into, size, WEFT_CALLER_PC());
  return xpg_strerror_r(number, into, size);
}

WEFT_HIDDEN char *weft_strstr(const char *haystack, const char *needle) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t length = strlen(needle);
  const char *found = strstr(haystack, needle);
  read_access(needle, length + 1, pc);
  read_access(haystack, found ? (size_t)(found - haystack) + length : strlen(haystack) + 1, pc);
  return strstr(haystack, needle);
}

/* qsort moves the elements itself: the whole array is read and written (the comparisons, the harness's code, are checked as they run) */
WEFT_HIDDEN void weft_qsort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *)) {
  memory_access(1, base, count * size, WEFT_CALLER_PC());
  qsort(base, count, size, compare);
}

/* Reading from a file or stream into the harness's memory: the bytes written, once libc or the
 * kernel wrote them. How many is known only then: checking all the buffer's size before the
 * call would report the untouched rest of a short read, a bug that is not there. A write into
 * a freed block or past one has happened when it is reported: it lands in weft's arena or the
 * harness's globals, which the next execution starts without, and ends this one. */
ssize_t checked_read(void *into, ssize_t got, uintptr_t pc) {
  if (got > 0) memory_access(1, into, (size_t)got, pc);
  return got;
}

WEFT_HIDDEN ssize_t weft_read(int fd, void *into, size_t n) { return checked_read(into, read(fd, into, n), WEFT_CALLER_PC()); }

WEFT_HIDDEN ssize_t weft_pread(int fd, void *into, size_t n, off_t offset) { return checked_read(into, pread(fd, into, n, offset), WEFT_CALLER_PC()); }

/* -D_FILE_OFFSET_BITS=64's name for it (the same function on a 64-bit system) */
WEFT_HIDDEN ssize_t weft_pread64(int fd, void *into, size_t n, off64_t offset) { return checked_read(into, pread64(fd, into, n, offset), WEFT_CALLER_PC()); }

char *checked_fgets(char *into, int size, FILE *stream, uintptr_t pc) {
  char *line = fgets(into, size, stream);
  if (line) memory_access(1, into, strlen(into) + 1, pc);
  return line;
}

WEFT_HIDDEN char *weft_fgets(char *into, int size, FILE *stream) { return checked_fgets(into, size, stream, WEFT_CALLER_PC()); }

size_t checked_fread(void *into, size_t size, size_t count, FILE *stream, uintptr_t pc) {
  size_t read = fread(into, size, count, stream);
  memory_access(1, into, read * size, pc);
  return read;
}

WEFT_HIDDEN size_t weft_fread(void *into, size_t size, size_t count, FILE *stream) { return checked_fread(into, size, count, stream, WEFT_CALLER_PC()); }
