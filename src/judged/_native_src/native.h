/* What the parts of judged._native share: the string-view layout, the thread pool, a chunk of text, the
 * C locale and the entry points that module.c lists.
 *
 * Strings follow the Arrow columnar format's Utf8View layout: 16 bytes a value, a 32-bit length, then the
 * bytes inline when they fit in 12, else a 4-byte prefix, the index of a data buffer and the offset into it.
 * Every part is compiled with hidden visibility: only PyInit__native leaves the shared object.
 */
#ifndef JUDGED_NATIVE_H
#define JUDGED_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <locale.h>
#ifdef __APPLE__
#include <xlocale.h> /* strtod_l, uselocale */
#endif
#include <stdint.h>
#include <string.h>

#define VIEW 16
#define INLINE 12
#define MAX_THREADS 64
/* The longest line read, in bytes, its newline not counted (judged.io.trec.MAX_LINE: the same limit). */
#define MAX_LINE ((size_t)1 << 20)

/* ---- module.c: what the module holds ------------------------------------------------------------- */

extern locale_t c_locale;  /* numbers are read and written in the C locale, whatever the process's */
extern PyObject *TextShrank; /* judged._native.TextShrank: a mapped file shrank while it was read */

/* ---- pool.c: work split among threads -------------------------------------------------------------- */

/* Work on share `share` of `context`; it must not touch Python objects (it runs without the GIL). */
typedef void (*ShareWork)(void *context, int share);

/* A requested thread count within 1 .. MAX_THREADS. */
int pool_threads(int requested);

/* work(context, s) for every share s in 0 .. shares - 1 on up to `threads` threads (thread t takes shares t,
 * t + threads, ...), the GIL released; a thread that cannot be started has its shares run by the caller. */
void pool_run(int shares, int threads, ShareWork work, void *context);

/* ---- views.c: string views, read and written ------------------------------------------------------- */

/* Utf8View values read in place: the views and the data buffers they point into. */
typedef struct {
    const uint8_t *views;
    const uint8_t **data;
    Py_ssize_t *data_sizes;
    Py_ssize_t buffers;
} Strings;

/* A data buffer being written: the strings longer than INLINE of the views that point into it. */
typedef struct {
    uint8_t *bytes;
    size_t size, capacity;
    int32_t index; /* its index among the data buffers */
} DataBuffer;

/* The bytes of value i, or NULL when its view points outside its buffers. */
static inline const uint8_t *string_at(const Strings *strings, int64_t i, int32_t *length) {
    const uint8_t *view = strings->views + VIEW * i;
    memcpy(length, view, 4);
    if (*length <= INLINE) {
        return *length < 0 ? NULL : view + 4;
    }
    int32_t buffer, offset;
    memcpy(&buffer, view + 8, 4);
    memcpy(&offset, view + 12, 4);
    if (buffer < 0 || buffer >= strings->buffers || offset < 0 ||
        (Py_ssize_t)offset + *length > strings->data_sizes[buffer]) {
        return NULL;
    }
    return strings->data[buffer] + offset;
}

/* The views object and the sequence of data buffers as Strings; 0 with a Python error set. Release with
 * strings_release whether or not it succeeded. */
int strings_from(PyObject *views, PyObject *buffers, Py_buffer *view_buffer, Py_buffer **data, Strings *strings);
void strings_release(Py_buffer *view_buffer, Py_buffer *data, Strings *strings);

/* Write the view of s[0:n] at view, its bytes into data when longer than INLINE; 0 when out of memory or
 * past what a view's 32-bit length and offset can hold. */
int write_view(DataBuffer *data, uint8_t *view, const uint8_t *s, size_t n);

/* Release a buffer that may never have been filled (its obj is NULL). */
static inline void buffer_release(Py_buffer *buffer) {
    if (buffer->obj) {
        PyBuffer_Release(buffer);
    }
}

/* splitmix64's finaliser: the join's string hash and the permutation kernel's generator both mix with it. */
static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* ---- lines.c: one chunk of a TREC text ------------------------------------------------------------ */

#define MAX_KEPT 8 /* the fields of a line kept for reading: the value's is among them */

/* Where the fields of a line are. */
typedef struct {
    int value_field;  /* 0-based field holding the score (run) or grade (qrels) */
    int min_fields;   /* a line has at least this many fields */
    int max_fields;   /* and at most this many (0: no limit) */
    int integer;      /* the value is an integer grade, else a float score */
    int indented_comments; /* '#' after leading whitespace starts a comment too (trec_eval's runs, not qrels) */
} Format;

/* A run of whole lines of the text and the rows it writes. */
typedef struct {
    const Format *format;
    const uint8_t *begin, *end; /* whole lines */
    int64_t first_row, rows; /* the chunk's first output row; its line count, then the rows it parsed */
    uint8_t *qid_views, *docid_views, *values; /* the whole output columns */
    DataBuffer data;                           /* this chunk's strings longer than INLINE */
    int release; /* the text is a read-only file mapping: hand back its pages once parsed */
    int failed;
    int shrank; /* the mapped file shrank under it (a SIGBUS caught) */
} Chunk;

/* The end of the line at p: its newline, else end. */
static inline const uint8_t *line_end(const uint8_t *p, const uint8_t *end) {
    const uint8_t *newline = memchr(p, '\n', (size_t)(end - p));
    return newline ? newline : end;
}

void lines_init(void); /* the byte classes the token scan reads */
void count_lines(void *chunk); /* chunk->rows: an upper bound on its data lines */
void parse_chunk(void *chunk); /* its rows written, or chunk->failed */

/* ---- mapping.c: reading a file mapping that may shrink --------------------------------------------- */

/* Catch SIGBUS while mappings are read (counted: the handler stays until the last user ends); 0 with errno
 * set when the handler cannot be installed. */
int shrink_guard_begin(void);
void shrink_guard_end(void);

/* work(arg), returning 1 (instead of the process ending) when a SIGBUS interrupts it, 0 otherwise. */
int shrink_guarded(void (*work)(void *), void *arg);

/* ---- the entry points (module.c lists them) -------------------------------------------------------- */

PyObject *parse_trec(PyObject *self, PyObject *args);     /* reader.c */
PyObject *flatten_nested(PyObject *self, PyObject *args); /* nested.c */
PyObject *scan_queries(PyObject *self, PyObject *args);   /* join.c */
PyObject *order_by_score(PyObject *self, PyObject *args); /* ordering.c */
PyObject *order_tied(PyObject *self, PyObject *args);     /* ordering.c */
PyObject *tukey_ranges(PyObject *self, PyObject *args);   /* kernels.c */
PyObject *running_sums(PyObject *self, PyObject *args);   /* kernels.c */
PyObject *resampled_means(PyObject *self, PyObject *args); /* kernels.c */
PyObject *trec_block(PyObject *self, PyObject *args);     /* format.c */

#endif
