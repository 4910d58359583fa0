/* The scanf family: what it writes through its pointer arguments (every assigned number, %s,
 * %[ and %c, every %n, the pointers %m stores) and, for sscanf, the text it reads, checked as
 * accesses: libc's own code is not instrumented, so scanning into a freed block, past the end
 * of one, or into memory another thread uses passed unchecked.
 *
 * Exactly the bytes libc writes are checked, not what the format could write: "%d %d" on "5"
 * leaves the second target alone, "%10s" on "abc" writes 4 bytes. How many is known:
 * - for sscanf and vsscanf, before the call: the text is in memory, so a dry run on it finds
 *   what each conversion will match. The format is cut into its directives, each run alone
 *   by libc (the same sscanf the harness called: its dialect decides what %i, %a or %b take)
 *   on the rest of the text, with the assignment suppressed and two %n around it; libc's scan
 *   depends on nothing but where in the text it is, so each directive matches alone what it
 *   matches in the whole call. The writes are checked, and the call made, only then.
 * - for a stream (fscanf, vfscanf, scanf, vscanf), only after the call, as fread's and fgets's
 *   are: what it reads cannot be run twice. libc's result counts the assigned conversions, in
 *   order; a string is as long as its 0 says (a 0 byte in the input would make it seem
 *   shorter), %c writes its width; a %n is checked when a later conversion was assigned, so
 *   certainly reached (one after the last assigned conversion is not checked). A write into a
 *   freed block or past one has happened when it is reported: it lands in weft's arena or the
 *   harness's globals, which the next execution starts without, and ends this one.
 * %m (and %as, %aS, %a[ in the pre-C99 dialect) hands the caller a block from libc's malloc: it
 * is moved onto weft's heap, as asprintf's are (libc-heap.c), so the harness's free() takes it.
 * Positional conversions (%1$d) and one not known here stop the walk: what follows is not
 * checked. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "runtime.h"

/* glibc's three dialects, by their symbols: the pre-C99 one (a harness built with -std=gnu89),
 * C99's, and C23's (glibc 2.38 on, with -std=c2x; weak: older glibc has none, nor then its callers) */
extern int legacy_sscanf(const char *, const char *, ...) __asm__("sscanf");
extern int legacy_vsscanf(const char *, const char *, va_list) __asm__("vsscanf");
extern int legacy_vfscanf(FILE *, const char *, va_list) __asm__("vfscanf");
extern int isoc99_sscanf(const char *, const char *, ...) __asm__("__isoc99_sscanf");
extern int isoc99_vsscanf(const char *, const char *, va_list) __asm__("__isoc99_vsscanf");
extern int isoc99_vfscanf(FILE *, const char *, va_list) __asm__("__isoc99_vfscanf");
extern int isoc23_sscanf(const char *, const char *, ...) __asm__("__isoc23_sscanf") __attribute__((weak));
extern int isoc23_vsscanf(const char *, const char *, va_list) __asm__("__isoc23_vsscanf") __attribute__((weak));
extern int isoc23_vfscanf(FILE *, const char *, va_list) __asm__("__isoc23_vfscanf") __attribute__((weak));

struct dialect {
  int (*sscanf)(const char *, const char *, ...);
  int (*vsscanf)(const char *, const char *, va_list);
  int (*vfscanf)(FILE *, const char *, va_list);
  int gnu_allocation; /* %as, %aS and %a[ allocate, as %m does */
};

static const struct dialect legacy = {legacy_sscanf, legacy_vsscanf, legacy_vfscanf, 1};
static const struct dialect isoc99 = {isoc99_sscanf, isoc99_vsscanf, isoc99_vfscanf, 0};
static const struct dialect isoc23 = {isoc23_sscanf, isoc23_vsscanf, isoc23_vfscanf, 0};

/* one conversion of a scanf format, from its % */
struct conversion {
  const char *percent, *end; /* end: just past it (past a scan set's ]) */
  char kind;                 /* 'v' a value of `size` bytes, 's' %s, '[' a scan set, 'c' %c, 'n' %n */
  int suppressed, allocates, wide;
  long width;                /* -1: none */
  size_t size;
};

/* the bytes of an integer (or %n) target with `longs` l's, `shorts` h's, or a j/z/t/wN size */
static size_t integer_size(int longs, int shorts, size_t sized) {
  if (sized) return sized;
  if (shorts) return shorts == 2 ? sizeof(char) : sizeof(short);
  return longs >= 2 ? sizeof(long long) : longs ? sizeof(long) : sizeof(int);
}

/* parses the conversion at `at` (a %); 0 at the end of the format, a positional or unknown one */
static int parse_conversion(const char *at, const struct dialect *dialect, struct conversion *c) {
  *c = (struct conversion){.percent = at, .width = -1};
  at++;
  for (;; at++) {
    if (*at == '*') c->suppressed = 1;
    else if (*at == 'm') c->allocates = 1;
    else if (*at != '\'' && *at != 'I') break;
  }
  if (*at >= '0' && *at <= '9') {
    long width = 0;
    while (*at >= '0' && *at <= '9') width = width * 10 + (*at++ - '0');
    if (*at == '$') return 0;
    c->width = width;
  }
  if (*at == 'm') c->allocates = 1, at++;
  if (dialect->gnu_allocation && *at == 'a' && (at[1] == 's' || at[1] == 'S' || at[1] == '[')) c->allocates = 1, at++;
  int longs = 0, shorts = 0;
  size_t sized = 0; /* j, z, t, wN, wfN */
  for (;; at++) {
    if (*at == 'l') longs++;
    else if (*at == 'h') shorts++;
    else if (*at == 'L' || *at == 'q') longs = 2;
    else if (*at == 'j') sized = sizeof(intmax_t);
    else if (*at == 'z') sized = sizeof(size_t);
    else if (*at == 't') sized = sizeof(ptrdiff_t);
    else if (*at == 'w') {
      if (at[1] == 'f') at++;
      size_t bits = 0;
      while (at[1] >= '0' && at[1] <= '9') bits = bits * 10 + (size_t)(*++at - '0');
      sized = bits / 8;
    } else break;
  }
  c->wide = longs > 0;
  switch (*at) {
    case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': case 'b':
      c->kind = 'v', c->size = integer_size(longs, shorts, sized);
      break;
    case 'n':
      c->kind = 'n', c->size = integer_size(longs, shorts, sized);
      break;
    case 'a': case 'A': case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
      c->kind = 'v', c->size = longs >= 2 ? sizeof(long double) : longs ? sizeof(double) : sizeof(float);
      break;
    case 'p':
      c->kind = 'v', c->size = sizeof(void *);
      break;
    case 'S': case 's':
      c->kind = 's', c->wide |= *at == 'S';
      break;
    case 'C': case 'c':
      c->kind = 'c', c->wide |= *at == 'C';
      break;
    case '[':
      c->kind = '[';
      at++;
      if (*at == '^') at++;
      if (*at == ']') at++;
      while (*at && *at != ']') at++;
      if (!*at) return 0;
      break;
    default:
      return 0;
  }
  c->end = at + 1;
  return 1;
}

/* a conversion that stores through an argument (a suppressed one, or %n, is not counted by libc's result) */
static int assigns(const struct conversion *c) { return !c->suppressed && c->kind != 'n'; }

/* the wide characters a scan of `bytes` bytes of multibyte text stores */
static size_t wide_characters(const char *text, size_t bytes) {
  mbstate_t state = {0};
  size_t count = mbsnrtowcs(NULL, &text, bytes, 0, &state);
  return count == (size_t)-1 ? bytes : count;
}

/* The dry run of one directive of sscanf's: the literal text and white space before the
 * conversion, then the conversion with its assignment suppressed, measured by two %n; %n
 * itself is the literal text, then a %n. Returns 0 when the directive fails (libc stops
 * there), else sets *start and *end (offsets in `text` of what the conversion matched). */
static int dry_run(const struct dialect *dialect, const char *text, const char *directive, const struct conversion *c, int *start, int *end) {
  size_t literal = (size_t)(c->percent - directive);
  char piece[literal + (size_t)(c->end - c->percent) + 8];
  memcpy(piece, directive, literal);
  char *at = piece + literal;
  *start = *end = -1;
  if (c->kind == 'n') {
    memcpy(at, "%n", 3);
    dialect->sscanf(text, piece, end);
    return *end >= 0;
  }
  /* white space before the first %n, where the conversion skips it (not %c and %[, which match it) */
  at = stpcpy(at, c->kind == 'c' || c->kind == '[' ? "%n%*" : " %n%*");
  /* the conversion as written, without its *, m (or GNU a) flags */
  const char *spec = c->percent + 1;
  while (strchr("*m'I", *spec) || (*spec >= '0' && *spec <= '9')) {
    if (*spec != '*' && *spec != 'm') *at++ = *spec;
    spec++;
  }
  if (c->allocates && *spec == 'a') spec++;
  memcpy(at, spec, (size_t)(c->end - spec));
  at += c->end - spec;
  memcpy(at, "%n", 3);
  dialect->sscanf(text, piece, start, end);
  return *end >= 0;
}

/* the bytes an assigned string or character conversion stored: `matched` bytes of input
 * (negative after a stream's call: its target's 0, or the %c width, says) */
static size_t stored(const struct conversion *c, void *target, const char *input, long matched) {
  size_t unit = c->wide ? sizeof(wchar_t) : 1;
  if (matched < 0) {
    if (c->kind == 'c') return (size_t)(c->width > 0 ? c->width : 1) * unit;
    return ((c->wide ? wcslen(target) : strlen(target)) + 1) * unit;
  }
  size_t characters = c->wide ? wide_characters(input, (size_t)matched) : (size_t)matched;
  return (characters + (c->kind != 'c')) * unit;
}

/* What a call of the dialect writes through its arguments. `text`: sscanf's input, run dry
 * before the call; NULL: a stream's call that assigned `assigned` conversions, checked after
 * it. `check`: the writes are checked; `adopt` (after the call): %m's blocks are moved onto
 * weft's heap. Returns whether the format allocates. */
static int scan_accesses(const struct dialect *dialect, const char *text, int assigned, int check, int adopt,
                         const char *format, va_list args, uintptr_t pc) {
  va_list walk;
  va_copy(walk, args);
  struct conversion c;
  /* after a stream's call: where the last assigned conversion ends; a %n before it was reached */
  const char *reached = format;
  if (!text) {
    int seen = 0;
    for (const char *at = format; *at && seen < assigned; at++) {
      if (*at != '%' || at[1] == '%') {
        at += *at == '%';
        continue;
      }
      if (!parse_conversion(at, dialect, &c)) break;
      at = c.end - 1;
      if (assigns(&c) && ++seen == assigned) reached = c.end;
    }
  }
  int allocates = 0, done = 0;
  size_t offset = 0; /* sscanf's: where in the text the next directive starts */
  const char *directive = format;
  for (const char *at = format; *at; at++) {
    if (*at != '%') continue;
    if (at[1] == '%') {
      at++;
      continue;
    }
    if (!parse_conversion(at, dialect, &c)) break;
    at = c.end - 1;
    int start = -1, end = -1;
    const char *matched = NULL;
    if (text) {
      if (!dry_run(dialect, text + offset, directive, &c, &start, &end)) break;
      if (c.kind != 'n') matched = text + offset + start;
      offset += (size_t)end;
    } else if (assigns(&c) ? done >= assigned : c.percent >= reached) break;
    directive = c.end;
    if (c.suppressed) continue;
    void *target = va_arg(walk, void *);
    done += assigns(&c);
    allocates |= c.allocates;
    size_t size = c.kind == 'v' || c.kind == 'n' ? c.size
                  : c.allocates                  ? sizeof(void *)
                                                 : stored(&c, target, matched, matched ? end - start : -1);
    if (check) memory_access(1, target, size, pc);
    if (adopt && c.allocates) {
      char **block = target, *moved = NULL;
      if (*block) {
        size_t bytes = stored(&c, *block, NULL, -1);
        moved = heap_allocate(bytes, pc);
        if (moved) memcpy(moved, *block, bytes);
        free(*block);
      }
      *block = moved;
    }
  }
  va_end(walk);
  return allocates;
}

static int scanned_text(const struct dialect *dialect, const char *text, const char *format, va_list args, uintptr_t pc) {
  memory_access(0, text, strlen(text) + 1, pc); /* glibc measures the text first */
  int saved_errno = errno; /* the dry run's ERANGE is the call's to set */
  int allocates = scan_accesses(dialect, text, 0, 1, 0, format, args, pc);
  errno = saved_errno;
  va_list call;
  va_copy(call, args);
  int result = dialect->vsscanf(text, format, call);
  va_end(call);
  if (allocates && result > 0) scan_accesses(dialect, NULL, result, 0, 1, format, args, pc);
  return result;
}

static int scanned_stream(const struct dialect *dialect, FILE *stream, const char *format, va_list args, uintptr_t pc) {
  va_list call;
  va_copy(call, args);
  int result = dialect->vfscanf(stream, format, call);
  va_end(call);
  scan_accesses(dialect, NULL, result, 1, 1, format, args, pc);
  return result;
}

/* each dialect's six functions: sscanf, vsscanf, fscanf, vfscanf, scanf, vscanf */
#define SCAN_FUNCTIONS(prefix, dialect)                                                                      \
  WEFT_HIDDEN int weft_##prefix##vsscanf(const char *text, const char *format, va_list args) {                \
    return scanned_text(&dialect, text, format, args, WEFT_CALLER_PC());                                     \
  }                                                                                                          \
  WEFT_HIDDEN int weft_##prefix##sscanf(const char *text, const char *format, ...) {                          \
    va_list args;                                                                                            \
    va_start(args, format);                                                                                  \
    int result = scanned_text(&dialect, text, format, args, WEFT_CALLER_PC());                               \
    va_end(args);                                                                                            \
    return result;                                                                                           \
  }                                                                                                          \
  WEFT_HIDDEN int weft_##prefix##vfscanf(FILE *stream, const char *format, va_list args) {                    \
    return scanned_stream(&dialect, stream, format, args, WEFT_CALLER_PC());                                 \
  }                                                                                                          \
  WEFT_HIDDEN int weft_##prefix##fscanf(FILE *stream, const char *format, ...) {                              \
    va_list args;                                                                                            \
    va_start(args, format);                                                                                  \
    int result = scanned_stream(&dialect, stream, format, args, WEFT_CALLER_PC());                           \
    va_end(args);                                                                                            \
    return result;                                                                                           \
  }                                                                                                          \
  WEFT_HIDDEN int weft_##prefix##vscanf(const char *format, va_list args) {                                   \
    return scanned_stream(&dialect, stdin, format, args, WEFT_CALLER_PC());                                  \
  }                                                                                                          \
  WEFT_HIDDEN int weft_##prefix##scanf(const char *format, ...) {                                             \
    va_list args;                                                                                            \
    va_start(args, format);                                                                                  \
    int result = scanned_stream(&dialect, stdin, format, args, WEFT_CALLER_PC());                            \
    va_end(args);                                                                                            \
    return result;                                                                                           \
  }

SCAN_FUNCTIONS(, legacy)
SCAN_FUNCTIONS(__isoc99_, isoc99)
SCAN_FUNCTIONS(__isoc23_, isoc23)
