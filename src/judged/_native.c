/* judged._native: the hot loops of evaluating a large run, in C.
 *
 * parse_trec: split a TREC run or qrels text into Arrow string-view columns
 *   (qid, docid) and a value column (score or grade), on every core. It takes
 *   only what the strict Python parser would read the same way and returns
 *   None for anything else (a short line, a control byte, invalid UTF-8, an unusual
 *   number, a byte-order mark), so the strict parser decides every doubtful
 *   case and names the line. Fields are split on ASCII whitespace only, as
 *   trec_eval's isspace() in the C locale (docs/formats.md). A mapped file
 *   that shrinks while it is read raises TextShrank instead of killing the
 *   process with SIGBUS.
 * scan_queries: for a run grouped by query, the first row repeating a docid
 *   of its query and, given the judgments of each query, the judgment row of
 *   every run row, matched exactly on the docid bytes.
 * flatten_nested: a {qid: {docid: value}} dict of dicts as those columns.
 * order_by_score: each query's rows by score, highest first, stable.
 * order_tied: the rows of each group of tied scores in rank order (by grade
 *   for the worst and best cases, then docid descending as trec_eval).
 *
 * Views follow the Arrow columnar format's Utf8View layout: 16 bytes a value,
 * a 32-bit length, then the bytes inline when they fit in 12, else a 4-byte
 * prefix, the index of a data buffer and the offset into it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <locale.h>
#include <math.h>
#ifdef __APPLE__
#include <xlocale.h> /* strtod_l */
#endif
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define VIEW 16
#define INLINE 12
#define CHUNK_BYTES ((size_t)1 << 30) /* most chunks' long strings stay below 2^31 bytes (write_view checks) */
#define MAX_THREADS 64

enum { TOKEN, SEPARATOR, NEWLINE, ODD, HIGH };

static uint8_t byte_class[256];

/* Control bytes other than whitespace are part of a token for trec_eval and the strict parser (which
 * refuses NUL); a line holding one is left to the strict parser, which keeps the token scan simple. */
static void init_classes(void) {
    for (int c = 0; c < 256; c++) {
        byte_class[c] = c >= 0x80 ? HIGH : (c < 0x20 ? ODD : TOKEN);
    }
    byte_class[' '] = byte_class['\t'] = byte_class['\r'] = byte_class['\v'] = byte_class['\f'] = SEPARATOR;
    byte_class['\n'] = NEWLINE;
}

/* ---- values ------------------------------------------------------------------------------------ */

static const double exact_powers[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static locale_t c_locale;

static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

/* Whether s[0:n] spells "inf" or "infinity" in any case, as atof and Python's float() read them. */
static int is_infinity(const uint8_t *s, size_t n) {
    static const char word[] = "infinity";
    if (n != 3 && n != 8) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if ((s[i] | 0x20) != word[i]) {
            return 0;
        }
    }
    return 1;
}

/* A decimal number as Python's float() reads it: [+-]digits[.digits][e[+-]digits], or [+-]inf[inity]
 * (rerankers mask candidates with it; NaN is left to the strict reader, which refuses it). Exact: small
 * mantissas and exponents take one correctly rounded IEEE operation (Clinger's fast path), the
 * rest go to strtod in the C locale, which rounds correctly too. Returns 0 for any other text. */
static int parse_double(const uint8_t *s, size_t n, double *out) {
    size_t i = 0;
    int negative = 0, digits = 0, any = 0, inexact = 0;
    uint64_t mantissa = 0;
    long exponent = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        negative = s[i++] == '-';
    }
    if (is_infinity(s + i, n - i)) {
        *out = negative ? -INFINITY : INFINITY;
        return 1;
    }
    for (; i < n && is_digit(s[i]); i++, any = 1) {
        if (mantissa == 0 && s[i] == '0') {
            continue;
        }
        if (digits < 19) {
            mantissa = mantissa * 10 + (uint64_t)(s[i] - '0');
            digits++;
        } else {
            exponent++;
            inexact = 1;
        }
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && is_digit(s[i]); i++, any = 1) {
            if (mantissa == 0 && s[i] == '0') {
                exponent--;
            } else if (digits < 19) {
                mantissa = mantissa * 10 + (uint64_t)(s[i] - '0');
                digits++;
                exponent--;
            } else {
                inexact = 1;
            }
        }
    }
    if (!any) {
        return 0;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        int exp_negative = 0, exp_any = 0;
        long value = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            exp_negative = s[i++] == '-';
        }
        for (; i < n && is_digit(s[i]); i++, exp_any = 1) {
            if (value < 100000) {
                value = value * 10 + (s[i] - '0');
            }
        }
        if (!exp_any) {
            return 0;
        }
        exponent += exp_negative ? -value : value;
    }
    if (i != n) {
        return 0;
    }
    if (mantissa == 0) {
        *out = negative ? -0.0 : 0.0;
        return 1;
    }
    if (!inexact && mantissa < ((uint64_t)1 << 53) && exponent >= -22 && exponent <= 22) {
        double value = (double)mantissa;
        value = exponent < 0 ? value / exact_powers[-exponent] : value * exact_powers[exponent];
        *out = negative ? -value : value;
        return 1;
    }
    char small[128], *text = n < sizeof small ? small : malloc(n + 1);
    if (!text) {
        return 0;
    }
    memcpy(text, s, n);
    text[n] = '\0';
    char *end;
    *out = strtod_l(text, &end, c_locale);
    int whole = end == text + n;
    if (text != small) {
        free(text);
    }
    return whole;
}

/* An integer as Python's int() reads it without underscores: [+-]digits, at most 18 of them. */
static int parse_int(const uint8_t *s, size_t n, int64_t *out) {
    size_t i = 0;
    int negative = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        negative = s[i++] == '-';
    }
    if (i == n || n - i > 18) {
        return 0;
    }
    int64_t value = 0;
    for (; i < n; i++) {
        if (!is_digit(s[i])) {
            return 0;
        }
        value = value * 10 + (s[i] - '0');
    }
    *out = negative ? -value : value;
    return 1;
}

/* ---- text -------------------------------------------------------------------------------------- */

/* A line with non-ASCII bytes is taken only when it is valid UTF-8 (as Python decodes it); non-ASCII
 * whitespace (a no-break space, U+3000) is part of a field, for both parsers. */
static int plain_utf8(const uint8_t *s, const uint8_t *end) {
    while (s < end) {
        uint8_t c = *s;
        if (c < 0x80) {
            s++;
            continue;
        }
        int extra;
        uint32_t cp, minimum;
        if (c >= 0xC2 && c <= 0xDF) {
            extra = 1, cp = c & 0x1F, minimum = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            extra = 2, cp = c & 0x0F, minimum = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            extra = 3, cp = c & 0x07, minimum = 0x10000;
        } else {
            return 0;
        }
        if (end - s <= extra) {
            return 0;
        }
        for (int k = 1; k <= extra; k++) {
            if ((s[k] & 0xC0) != 0x80) {
                return 0;
            }
            cp = (cp << 6) | (s[k] & 0x3F);
        }
        if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return 0;
        }
        s += extra + 1;
    }
    return 1;
}

/* ---- parsing ----------------------------------------------------------------------------------- */

typedef struct {
    int value_field;  /* 0-based field holding the score (run) or grade (qrels) */
    int min_fields;   /* a line has at least this many fields */
    int max_fields;   /* and at most this many (0: no limit) */
    int integer;      /* the value is an integer grade, else a float score */
    int indented_comments; /* '#' after leading whitespace starts a comment too (trec_eval's runs, not qrels) */
} Format;

typedef struct {
    const Format *format;
    const uint8_t *begin, *end; /* whole lines */
    int64_t first_row, rows; /* the chunk's first output row; its line count, then the rows it parsed */
    int32_t buffer_index;
    uint8_t *qid_views, *docid_views, *values; /* the whole output columns */
    uint8_t *data;                             /* this chunk's strings longer than INLINE */
    size_t data_size, data_capacity;
    int release; /* the text is a read-only file mapping: hand back its pages once parsed */
    int failed;
    int shrank; /* the mapped file shrank under it (a SIGBUS caught) */
} Chunk;

#define RELEASE_STEP ((size_t)16 << 20)

/* Drop the mapped file pages wholly inside [from, to) from this process (the page cache keeps them),
 * so that a mapped file and the columns parsed from it are not both resident. */
static void release_pages(const uint8_t *from, const uint8_t *to) {
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = ((uintptr_t)from + page - 1) & ~(page - 1), last = (uintptr_t)to & ~(page - 1);
    if (last > first) {
        madvise((void *)first, last - first, MADV_DONTNEED);
    }
}

/* ---- a mapped file that shrinks ---------------------------------------------------------------- */

/* Reading a page of a file mapping past the file's end raises SIGBUS in the reading thread. While
 * parse_trec reads a mapping, this handler jumps back to where the reading thread set bus_jump, and the
 * read fails as shrunk. A SIGBUS anywhere else goes to the handler that was there before. */
/* volatile: a store the handler reads is never elided; initial-exec: reading it in the handler never
 * allocates (a module's thread-locals are otherwise allocated on a thread's first use). */
static _Thread_local sigjmp_buf *volatile bus_jump __attribute__((tls_model("initial-exec")));
static struct sigaction previous_bus;
static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;
static int bus_users;
static PyObject *TextShrank;

static void on_bus(int sig, siginfo_t *info, void *context) {
    (void)context;
    sigjmp_buf *jump = bus_jump;
    if (jump) {
        siglongjmp(*jump, 1);
    }
    sigaction(SIGBUS, &previous_bus, NULL); /* a fault runs again into it; a signal sent is sent again */
    if (info->si_code <= 0) {
        raise(sig);
    }
}

static int guard_bus(void) {
    pthread_mutex_lock(&bus_lock);
    int ok = 1;
    if (bus_users == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_bus;
        action.sa_flags = SA_SIGINFO;
        sigemptyset(&action.sa_mask);
        ok = sigaction(SIGBUS, &action, &previous_bus) == 0;
    }
    bus_users += ok;
    pthread_mutex_unlock(&bus_lock);
    return ok;
}

static void unguard_bus(void) {
    pthread_mutex_lock(&bus_lock);
    if (--bus_users == 0) {
        sigaction(SIGBUS, &previous_bus, NULL);
    }
    pthread_mutex_unlock(&bus_lock);
}

/* work(chunk), where a SIGBUS while it reads a mapping marks the chunk shrunk instead of ending the
 * process. sigsetjmp saves the signal mask, so SIGBUS is unblocked again after the jump. work must not
 * be inlined here: a function that calls sigsetjmp is compiled with its registers spilled. */
static void guarded(Chunk *chunk, void (*work)(Chunk *)) {
    if (!chunk->release) {
        work(chunk);
        return;
    }
    sigjmp_buf jump;
    if (sigsetjmp(jump, 1) == 0) {
        bus_jump = &jump;
        work(chunk);
    } else {
        chunk->failed = chunk->shrank = 1;
    }
    bus_jump = NULL;
}

static const uint8_t *line_end(const uint8_t *p, const uint8_t *end) {
    const uint8_t *newline = memchr(p, '\n', (size_t)(end - p));
    return newline ? newline : end;
}

/* An upper bound on the chunk's data lines: its line count (comments and blank lines included, so
 * the rows parsed may be fewer). Line ends are counted eight bytes at a time: in word ^ "\n\n...", a
 * zero byte is one whose low seven bits carry nothing into its clear top bit; each such byte adds 1
 * to its lane of a sum that is folded before any lane can pass 255. */
__attribute__((noinline)) static void count_lines(Chunk *chunk) {
    const uint64_t lows = 0x7F7F7F7F7F7F7F7FULL, newlines = 0x0A0A0A0A0A0A0A0AULL;
    const uint64_t pairs = 0x00FF00FF00FF00FFULL, fold = 0x0001000100010001ULL;
    const uint8_t *s = chunk->begin, *end = chunk->end;
    int64_t lines = 0;
    while (end - s >= 8) {
        uint64_t lanes = 0;
        for (int k = 0; k < 255 && end - s >= 8; k++, s += 8) {
            uint64_t word;
            memcpy(&word, s, 8);
            word ^= newlines;
            lanes += (~(((word & lows) + lows) | word) & ~lows) >> 7;
        }
        lines += (int64_t)((((lanes & pairs) + ((lanes >> 8) & pairs)) * fold) >> 48);
    }
    for (; s < end; s++) {
        lines += *s == '\n';
    }
    chunk->rows = lines + (chunk->end > chunk->begin && chunk->end[-1] != '\n');
}

static int write_view(Chunk *chunk, uint8_t *view, const uint8_t *s, size_t n) {
    /* A view holds its length and offset as int32: a line of a gigabyte or more can pass that (a chunk
     * grows to its last line's end), and a wrapped length or offset would point at the wrong bytes. */
    if (n > INLINE && (n > INT32_MAX || chunk->data_size > (size_t)INT32_MAX - n)) {
        return 0;
    }
    int32_t length = (int32_t)n;
    memset(view, 0, VIEW);
    memcpy(view, &length, 4);
    if (n <= INLINE) {
        memcpy(view + 4, s, n);
        return 1;
    }
    if (chunk->data_size + n > chunk->data_capacity) {
        size_t capacity = chunk->data_capacity ? chunk->data_capacity * 2 : (size_t)1 << 16;
        while (capacity < chunk->data_size + n) {
            capacity *= 2;
        }
        uint8_t *grown = realloc(chunk->data, capacity);
        if (!grown) {
            return 0;
        }
        chunk->data = grown, chunk->data_capacity = capacity;
    }
    int32_t offset = (int32_t)chunk->data_size;
    memcpy(chunk->data + chunk->data_size, s, n);
    chunk->data_size += n;
    memcpy(view + 4, s, 4);
    memcpy(view + 8, &chunk->buffer_index, 4);
    memcpy(view + 12, &offset, 4);
    return 1;
}

#define MAX_KEPT 8

/* The first byte at or after s that cannot be inside a token (a separator, the line's end or an odd
 * byte), setting *high when a non-ASCII byte was passed. Eight bytes at a time while eight remain: in
 * a little-endian word, the lowest byte flagged by the borrow trick is exactly the first below 0x21. */
static const uint8_t *token_end(const uint8_t *s, const uint8_t *end, int *high) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL, tops = 0x8080808080808080ULL;
    while (end - s >= 8) {
        uint64_t word;
        memcpy(&word, s, 8);
        uint64_t flagged = (((word - 0x21 * ones) & ~word) | word) & tops;
        if (!flagged) {
            s += 8;
            continue;
        }
        s += __builtin_ctzll(flagged) >> 3;
        if (*s < 0x80) {
            return s;
        }
        *high = 1;
        s++;
    }
#endif
    for (; s < end; s++) {
        uint8_t kind = byte_class[*s];
        if (kind != TOKEN && kind != HIGH) {
            break;
        }
        *high |= kind == HIGH;
    }
    return s;
}

__attribute__((noinline)) static void parse_chunk(Chunk *chunk) {
    const Format *format = chunk->format;
    const uint8_t *end = chunk->end, *kept = chunk->begin;
    /* The text may change while it is read (a file mapping that another process rewrites in place, a
     * buffer another thread fills): never write past the rows counted for this chunk. */
    int64_t row = chunk->first_row, last_row = chunk->first_row + chunk->rows;
    for (const uint8_t *p = chunk->begin; p < end;) {
        if (chunk->release && (size_t)(p - kept) >= RELEASE_STEP) {
            release_pages(kept, p);
            kept = p;
        }
        const uint8_t *first = p;
        while (format->indented_comments && first < end && byte_class[*first] == SEPARATOR) {
            first++;
        }
        if (first < end && *first == '#') { /* a comment, whatever its bytes (as in trec_eval and the strict parser) */
            p = line_end(first, end) + 1;
            continue;
        }
        const uint8_t *start[MAX_KEPT];
        size_t length[MAX_KEPT];
        int fields = 0, high = 0;
        const uint8_t *q = p;
        for (;;) {
            while (q < end && byte_class[*q] == SEPARATOR) {
                q++;
            }
            if (q == end || *q == '\n') {
                break;
            }
            const uint8_t *token = q;
            q = token_end(q, end, &high);
            if (q < end && byte_class[*q] == ODD) {
                chunk->failed = 1;
                return;
            }
            if (fields < MAX_KEPT) {
                start[fields] = token;
                length[fields] = (size_t)(q - token);
            }
            fields++;
        }
        if (fields == 0) { /* a blank line */
            p = q + 1;
            continue;
        }
        if (fields < format->min_fields || (format->max_fields && fields > format->max_fields) ||
            (high && !plain_utf8(p, q)) || row == last_row) {
            chunk->failed = 1;
            return;
        }
        int v = format->value_field;
        int ok = format->integer ? parse_int(start[v], length[v], (int64_t *)(chunk->values + 8 * row))
                                 : parse_double(start[v], length[v], (double *)(chunk->values + 8 * row));
        if (!ok || !write_view(chunk, chunk->qid_views + VIEW * row, start[0], length[0]) ||
            !write_view(chunk, chunk->docid_views + VIEW * row, start[2], length[2])) {
            chunk->failed = 1;
            return;
        }
        row++;
        p = q + 1;
    }
    chunk->rows = row - chunk->first_row;
}

static void count_lines_guarded(Chunk *chunk) { guarded(chunk, count_lines); }

static void parse_chunk_guarded(Chunk *chunk) { guarded(chunk, parse_chunk); }

typedef struct {
    Chunk *chunks;
    int count, stride, first;
    void (*work)(Chunk *);
} Share;

static void *run_share(void *arg) {
    Share *share = arg;
    for (int i = share->first; i < share->count; i += share->stride) {
        share->work(&share->chunks[i]);
    }
    return NULL;
}

/* Run work on every chunk, on up to `threads` threads, without the GIL. */
static void for_each_chunk(Chunk *chunks, int count, int threads, void (*work)(Chunk *)) {
    if (threads > count) {
        threads = count;
    }
    Share shares[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started = 0;
    if (threads > MAX_THREADS) {
        threads = MAX_THREADS;
    }
    Py_BEGIN_ALLOW_THREADS
    for (int t = 0; t < threads; t++) {
        shares[t] = (Share){chunks, count, threads, t, work};
    }
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&ids[t], NULL, run_share, &shares[t]) == 0) {
            started = t;
        } else {
            break;
        }
    }
    if (started < threads - 1) { /* could not start them all: this thread takes what was left */
        for (int t = started + 1; t < threads; t++) {
            run_share(&shares[t]);
        }
    }
    run_share(&shares[0]);
    for (int t = 1; t <= started; t++) {
        pthread_join(ids[t], NULL);
    }
    Py_END_ALLOW_THREADS
}

enum { SPLIT_DONE, SPLIT_SHRANK, SPLIT_MARKED };

/* Cut the text into count chunks of whole lines, unless it starts with a UTF-8 byte-order mark. Apart
 * from parse_trec, because a function calling sigsetjmp is compiled with its registers spilled. */
__attribute__((noinline)) static int split_chunks(Chunk *chunks, int count, const Format *format,
                                                  const uint8_t *bytes, size_t size, int release) {
    sigjmp_buf jump; /* the cuts read the mapping too */
    if (release) {
        if (sigsetjmp(jump, 1)) {
            bus_jump = NULL;
            return SPLIT_SHRANK;
        }
        bus_jump = &jump;
    }
    int marked = size >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0;
    const uint8_t *p = bytes, *end = bytes + size;
    for (int i = 0; i < count && !marked; i++) {
        const uint8_t *stop = i == count - 1 ? end : bytes + size / (size_t)count * (size_t)(i + 1);
        if (stop < p) {
            stop = p;
        }
        if (stop < end && stop > bytes && stop[-1] != '\n') {
            stop = line_end(stop, end);
            stop = stop < end ? stop + 1 : end;
        }
        chunks[i] = (Chunk){.format = format, .begin = p, .end = stop, .buffer_index = i, .release = release};
        p = stop;
    }
    bus_jump = NULL;
    return marked ? SPLIT_MARKED : SPLIT_DONE;
}

static PyObject *parse_trec(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer text;
    Format format;
    int threads, release;
    format.indented_comments = 0;
    if (!PyArg_ParseTuple(args, "y*iiippi|p", &text, &format.value_field, &format.min_fields, &format.max_fields,
                          &format.integer, &release, &threads, &format.indented_comments)) {
        return NULL;
    }
    if (format.value_field < 0 || format.value_field >= MAX_KEPT || format.min_fields <= format.value_field ||
        format.min_fields < 3 || threads < 1) {
        PyBuffer_Release(&text);
        PyErr_SetString(PyExc_ValueError, "parse_trec: bad format");
        return NULL;
    }
    if (threads > MAX_THREADS) { /* a chunk a thread: no more chunks than threads that can run them */
        threads = MAX_THREADS;
    }
    const uint8_t *bytes = text.buf;
    size_t size = (size_t)text.len;
    int count = (int)(size / CHUNK_BYTES) + 1;
    if (count < threads && size >= ((size_t)1 << 20)) {
        count = threads;
    }
    Chunk *chunks = calloc((size_t)count, sizeof(Chunk));
    PyObject *result = NULL, *qids = NULL, *docids = NULL, *values = NULL, *buffers = NULL;
    int guarding = 0;
    if (!chunks) {
        PyErr_NoMemory();
        goto done;
    }
    if (release && !(guarding = guard_bus())) {
        PyErr_SetFromErrno(PyExc_OSError);
        goto done;
    }
    int split = split_chunks(chunks, count, &format, bytes, size, release);
    if (split == SPLIT_SHRANK) {
        PyErr_SetString(TextShrank, "parse_trec: the mapped file shrank while it was read");
        goto done;
    }
    if (split == SPLIT_MARKED) { /* a byte-order mark: the strict parser refuses it */
        result = Py_NewRef(Py_None);
        goto done;
    }
    for_each_chunk(chunks, count, threads, count_lines_guarded);
    int shrank = 0;
    for (int i = 0; i < count; i++) {
        shrank |= chunks[i].shrank;
    }
    if (shrank) {
        PyErr_SetString(TextShrank, "parse_trec: the mapped file shrank while it was read");
        goto done;
    }
    int64_t rows = 0;
    for (int i = 0; i < count; i++) {
        chunks[i].first_row = rows;
        rows += chunks[i].rows;
    }
    qids = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(rows * VIEW));
    docids = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(rows * VIEW));
    values = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(rows * 8));
    if (!qids || !docids || !values) {
        goto done;
    }
    for (int i = 0; i < count; i++) {
        chunks[i].qid_views = (uint8_t *)PyByteArray_AS_STRING(qids);
        chunks[i].docid_views = (uint8_t *)PyByteArray_AS_STRING(docids);
        chunks[i].values = (uint8_t *)PyByteArray_AS_STRING(values);
    }
    for_each_chunk(chunks, count, threads, parse_chunk_guarded);
    int failed = 0;
    for (int i = 0; i < count; i++) {
        failed |= chunks[i].failed;
        shrank |= chunks[i].shrank;
    }
    if (shrank) {
        PyErr_SetString(TextShrank, "parse_trec: the mapped file shrank while it was read");
        goto done;
    }
    if (failed) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    rows = 0; /* close the gaps that comments and blank lines left after each chunk's rows */
    for (int i = 0; i < count; i++) {
        if (chunks[i].first_row != rows) {
            memmove(chunks[i].qid_views + VIEW * rows, chunks[i].qid_views + VIEW * chunks[i].first_row,
                    (size_t)chunks[i].rows * VIEW);
            memmove(chunks[i].docid_views + VIEW * rows, chunks[i].docid_views + VIEW * chunks[i].first_row,
                    (size_t)chunks[i].rows * VIEW);
            memmove(chunks[i].values + 8 * rows, chunks[i].values + 8 * chunks[i].first_row,
                    (size_t)chunks[i].rows * 8);
        }
        rows += chunks[i].rows;
    }
    if (PyByteArray_Resize(qids, (Py_ssize_t)(rows * VIEW)) < 0 ||
        PyByteArray_Resize(docids, (Py_ssize_t)(rows * VIEW)) < 0 ||
        PyByteArray_Resize(values, (Py_ssize_t)(rows * 8)) < 0) {
        goto done;
    }
    buffers = PyList_New(count);
    if (!buffers) {
        goto done;
    }
    for (int i = 0; i < count; i++) {
        PyObject *data = PyBytes_FromStringAndSize((const char *)chunks[i].data, (Py_ssize_t)chunks[i].data_size);
        if (!data) {
            goto done;
        }
        PyList_SET_ITEM(buffers, i, data);
    }
    result = Py_BuildValue("(LOOOO)", (long long)rows, qids, docids, values, buffers);
done:
    if (guarding) {
        unguard_bus();
    }
    if (chunks) {
        for (int i = 0; i < count; i++) {
            free(chunks[i].data);
        }
        free(chunks);
    }
    Py_XDECREF(qids);
    Py_XDECREF(docids);
    Py_XDECREF(values);
    Py_XDECREF(buffers);
    PyBuffer_Release(&text);
    return result;
}

/* ---- grouped queries --------------------------------------------------------------------------- */

typedef struct {
    const uint8_t *views; /* Utf8View values */
    const uint8_t **data; /* its data buffers */
    Py_ssize_t *data_sizes;
    Py_ssize_t buffers;
} Strings;

/* The bytes of value i, or NULL when its view points outside its buffers. */
static const uint8_t *string_at(const Strings *strings, int64_t i, int32_t *length) {
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

static uint64_t mix(uint64_t x) { /* splitmix64's finaliser */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t hash_bytes(const uint8_t *s, int32_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t word;
        memcpy(&word, s + i, 8);
        h = mix(h ^ word);
    }
    if (i < n) {
        uint64_t word = 0;
        memcpy(&word, s + i, (size_t)(n - i));
        h = mix(h ^ word);
    }
    return h;
}

/* An open-addressing set of rows keyed by their string, rebuilt for each query. */
typedef struct {
    int64_t *rows;
    uint64_t *hashes;
    size_t capacity, allocated; /* slots in use (a power of two), slots allocated */
} Table;

static int table_reset(Table *table, int64_t entries) {
    size_t capacity = 16;
    while (capacity < (size_t)entries * 2) {
        capacity *= 2;
    }
    if (capacity > table->allocated) {
        free(table->rows);
        free(table->hashes);
        table->rows = malloc(capacity * sizeof(int64_t));
        table->hashes = malloc(capacity * sizeof(uint64_t));
        table->allocated = table->rows && table->hashes ? capacity : 0;
        if (!table->allocated) {
            return 0;
        }
    }
    memset(table->rows, 0xff, capacity * sizeof(int64_t));
    table->capacity = capacity;
    return 1;
}

/* The row already in the table with the same string, else -1 after adding `row` (when add). */
static int64_t table_find(Table *table, const Strings *strings, const uint8_t *s, int32_t n, uint64_t h,
                          int64_t row, int add, int *bad) {
    size_t mask = table->capacity - 1;
    for (size_t slot = h & mask;; slot = (slot + 1) & mask) {
        int64_t other = table->rows[slot];
        if (other < 0) {
            if (add) {
                table->rows[slot] = row;
                table->hashes[slot] = h;
            }
            return -1;
        }
        if (table->hashes[slot] == h) {
            int32_t m;
            const uint8_t *t = string_at(strings, other, &m);
            if (!t) {
                *bad = 1;
                return -1;
            }
            if (m == n && memcmp(s, t, (size_t)n) == 0) {
                return other;
            }
        }
    }
}

typedef struct {
    const Strings *run, *judged;
    const int64_t *offsets;          /* rows of query b: offsets[b] .. offsets[b + 1] */
    const int64_t *judged_rows;      /* judgment rows grouped by query, or NULL */
    const int64_t *starts, *ends;    /* query b's judgments: judged_rows[starts[b]] .. [ends[b] - 1] */
    int joining;                     /* whether to match the run rows to the judgments */
    int64_t first_block, last_block; /* this share's queries */
    int64_t repeated;                /* out: the first row repeating a docid of its query, else -1 */
    int repeats;                     /* whether to look for repeated docids */
    int bad;
    int64_t *pairs;                  /* out: (run row, judgment row) of each match, in run order */
    size_t matched, capacity;
} Scan;

static int add_pair(Scan *scan, int64_t row, int64_t judged_row) {
    if (scan->matched == scan->capacity) {
        size_t capacity = scan->capacity ? scan->capacity * 2 : 4096;
        int64_t *grown = realloc(scan->pairs, capacity * 2 * sizeof(int64_t));
        if (!grown) {
            return 0;
        }
        scan->pairs = grown, scan->capacity = capacity;
    }
    scan->pairs[2 * scan->matched] = row;
    scan->pairs[2 * scan->matched + 1] = judged_row;
    scan->matched++;
    return 1;
}

static void *scan_share(void *arg) {
    Scan *scan = arg;
    Table seen = {0}, judged = {0};
    scan->repeated = -1;
    for (int64_t b = scan->first_block; b < scan->last_block && !scan->bad; b++) {
        int64_t begin = scan->offsets[b], end = scan->offsets[b + 1];
        int check = scan->repeats && scan->repeated < 0;
        if (check && !table_reset(&seen, end - begin)) {
            scan->bad = 1;
            break;
        }
        int64_t judged_count = scan->joining ? scan->ends[b] - scan->starts[b] : 0;
        if (!check && judged_count == 0) {
            continue;
        }
        if (judged_count && !table_reset(&judged, judged_count)) {
            scan->bad = 1;
            break;
        }
        for (int64_t k = 0; k < judged_count; k++) {
            int64_t row = scan->judged_rows[scan->starts[b] + k];
            int32_t n;
            const uint8_t *s = string_at(scan->judged, row, &n);
            if (!s) {
                scan->bad = 1;
                break;
            }
            table_find(&judged, scan->judged, s, n, hash_bytes(s, n), row, 1, &scan->bad);
        }
        for (int64_t row = begin; row < end && !scan->bad; row++) {
            int32_t n;
            const uint8_t *s = string_at(scan->run, row, &n);
            if (!s) {
                scan->bad = 1;
                break;
            }
            uint64_t h = hash_bytes(s, n);
            if (check && table_find(&seen, scan->run, s, n, h, row, 1, &scan->bad) >= 0) {
                scan->repeated = row;
                check = 0;
            }
            if (judged_count) {
                int64_t judged_row = table_find(&judged, scan->judged, s, n, h, row, 0, &scan->bad);
                if (judged_row >= 0 && !add_pair(scan, row, judged_row)) {
                    scan->bad = 1;
                }
            } else if (!check) {
                break; /* nothing to match, and a repeat was found */
            }
        }
    }
    free(seen.rows), free(seen.hashes), free(judged.rows), free(judged.hashes);
    return NULL;
}

static int strings_from(PyObject *views, PyObject *buffers, Py_buffer *view_buffer, Py_buffer **data,
                        Strings *strings) {
    if (PyObject_GetBuffer(views, view_buffer, PyBUF_SIMPLE) < 0) {
        return 0;
    }
    Py_ssize_t count = PySequence_Size(buffers);
    if (count < 0) {
        return 0;
    }
    *data = PyMem_Calloc((size_t)count + 1, sizeof(Py_buffer));
    strings->data = PyMem_Calloc((size_t)count + 1, sizeof(uint8_t *));
    strings->data_sizes = PyMem_Calloc((size_t)count + 1, sizeof(Py_ssize_t));
    if (!*data || !strings->data || !strings->data_sizes) {
        PyErr_NoMemory();
        return 0;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PySequence_GetItem(buffers, i);
        int ok = item && PyObject_GetBuffer(item, &(*data)[i], PyBUF_SIMPLE) == 0;
        Py_XDECREF(item);
        if (!ok) {
            return 0;
        }
        strings->data[i] = (*data)[i].buf;
        strings->data_sizes[i] = (*data)[i].len;
        strings->buffers = i + 1;
    }
    strings->views = view_buffer->buf;
    return 1;
}

static void strings_release(Py_buffer *view_buffer, Py_buffer *data, Strings *strings) {
    if (view_buffer->obj) {
        PyBuffer_Release(view_buffer);
    }
    for (Py_ssize_t i = 0; data && i < strings->buffers; i++) {
        PyBuffer_Release(&data[i]);
    }
    PyMem_Free(data);
    PyMem_Free((void *)strings->data);
    PyMem_Free(strings->data_sizes);
}

static PyObject *scan_queries(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *run_views, *run_buffers, *offsets_object, *judged_views, *judged_buffers, *judged_rows_object,
        *starts_object, *ends_object;
    int repeats, threads;
    if (!PyArg_ParseTuple(args, "OOOOOOOOpi", &run_views, &run_buffers, &offsets_object, &judged_views,
                          &judged_buffers, &judged_rows_object, &starts_object, &ends_object, &repeats, &threads)) {
        return NULL;
    }
    int joining = judged_views != Py_None;
    Py_buffer run_view = {0}, judged_view = {0}, offsets = {0}, judged_rows = {0}, starts = {0}, ends = {0};
    Py_buffer *run_data = NULL, *judged_data = NULL;
    Strings run = {0}, judged = {0};
    PyObject *rows_out = NULL, *judged_out = NULL, *result = NULL;
    Scan scans[MAX_THREADS];
    int scanned = 0;
    if (!strings_from(run_views, run_buffers, &run_view, &run_data, &run) ||
        PyObject_GetBuffer(offsets_object, &offsets, PyBUF_SIMPLE) < 0) {
        goto done;
    }
    int64_t blocks = offsets.len / 8 - 1, rows = run_view.len / VIEW;
    const int64_t *offset = offsets.buf;
    int ordered = blocks >= 0 && offset[0] == 0 && offset[blocks] == rows;
    for (int64_t b = 0; ordered && b < blocks; b++) {
        ordered = offset[b] <= offset[b + 1];
    }
    if (!ordered) { /* every row belongs to exactly one query: each gets its match written */
        PyErr_SetString(PyExc_ValueError, "scan_queries: offsets do not fit the views");
        goto done;
    }
    if (joining) {
        if (!strings_from(judged_views, judged_buffers, &judged_view, &judged_data, &judged) ||
            PyObject_GetBuffer(judged_rows_object, &judged_rows, PyBUF_SIMPLE) < 0 ||
            PyObject_GetBuffer(starts_object, &starts, PyBUF_SIMPLE) < 0 ||
            PyObject_GetBuffer(ends_object, &ends, PyBUF_SIMPLE) < 0) {
            goto done;
        }
        int64_t judged_count = judged_view.len / VIEW, order = judged_rows.len / 8;
        const int64_t *start = starts.buf, *stop = ends.buf, *judged_row = judged_rows.buf;
        int fits = starts.len / 8 == blocks && ends.len / 8 == blocks;
        for (int64_t b = 0; fits && b < blocks; b++) {
            fits = start[b] >= 0 && start[b] <= stop[b] && stop[b] <= order;
        }
        for (int64_t k = 0; fits && k < order; k++) {
            fits = judged_row[k] >= 0 && judged_row[k] < judged_count;
        }
        if (!fits) {
            PyErr_SetString(PyExc_ValueError, "scan_queries: judgment ranges do not fit");
            goto done;
        }
    }
    if (threads < 1) {
        threads = 1;
    }
    if (threads > MAX_THREADS) {
        threads = MAX_THREADS;
    }
    int64_t share = 0;
    for (int t = 0; t < threads; t++) { /* contiguous queries of about equal rows */
        int64_t goal = (offset[blocks] * (t + 1)) / threads, last = share;
        while (last < blocks && offset[last + 1] <= goal) {
            last++;
        }
        if (t == threads - 1) {
            last = blocks;
        }
        scans[t] = (Scan){&run, &judged, offset, judged_rows.buf, starts.buf, ends.buf, joining, share, last, -1,
                          repeats, 0, NULL, 0, 0};
        share = last;
    }
    scanned = threads;
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    Py_BEGIN_ALLOW_THREADS
    for (int t = 1; t < threads; t++) {
        started[t] = pthread_create(&ids[t], NULL, scan_share, &scans[t]) == 0;
        if (!started[t]) {
            scan_share(&scans[t]);
        }
    }
    scan_share(&scans[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t]) {
            pthread_join(ids[t], NULL);
        }
    }
    Py_END_ALLOW_THREADS
    int64_t repeated = -1, matched = 0;
    int bad = 0;
    for (int t = 0; t < threads; t++) {
        bad |= scans[t].bad;
        matched += (int64_t)scans[t].matched;
        if (repeated < 0 && scans[t].repeated >= 0) {
            repeated = scans[t].repeated;
        }
    }
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "scan_queries: a string view points outside its buffers");
        goto done;
    }
    if (joining) { /* the shares hold consecutive queries: their matches, one after another, are in run order */
        rows_out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(matched * 8));
        judged_out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(matched * 8));
        if (!rows_out || !judged_out) {
            goto done;
        }
        int64_t *row_of = (int64_t *)PyByteArray_AS_STRING(rows_out), *judged_of = (int64_t *)PyByteArray_AS_STRING(judged_out);
        for (int t = 0, k = 0; t < threads; t++) {
            for (size_t i = 0; i < scans[t].matched; i++, k++) {
                row_of[k] = scans[t].pairs[2 * i];
                judged_of[k] = scans[t].pairs[2 * i + 1];
            }
        }
    }
    result = Py_BuildValue("(LOO)", (long long)repeated, rows_out ? rows_out : Py_None, judged_out ? judged_out : Py_None);
done:
    for (int t = 0; t < scanned; t++) {
        free(scans[t].pairs);
    }
    Py_XDECREF(rows_out);
    Py_XDECREF(judged_out);
    strings_release(&run_view, run_data, &run);
    strings_release(&judged_view, judged_data, &judged);
    for (Py_buffer *b = &offsets; b; b = b == &offsets ? &judged_rows : b == &judged_rows ? &starts : b == &starts ? &ends : NULL) {
        if (b->obj) {
            PyBuffer_Release(b);
        }
    }
    return result;
}

/* ---- tied groups ------------------------------------------------------------------------------- */

typedef struct {
    const Strings *strings;
    const int32_t *grades; /* NULL: by docid alone */
    int best;              /* grades descending (best case), else ascending (worst case) */
    int bad;
} TieOrder;

typedef struct {
    int64_t row;
    int32_t grade;
    int32_t length;
    const uint8_t *bytes;
} Tied;

/* Docids compare as polars compares strings: bytewise, a prefix first. */
static int compare_bytes(const Tied *a, const Tied *b) {
    int32_t shorter = a->length < b->length ? a->length : b->length;
    int c = memcmp(a->bytes, b->bytes, (size_t)shorter);
    return c ? c : (a->length > b->length) - (a->length < b->length);
}

static int compare_tied(const Tied *a, const Tied *b, const TieOrder *order) {
    if (order->grades && a->grade != b->grade) {
        return (a->grade < b->grade) == !order->best ? -1 : 1;
    }
    return -compare_bytes(a, b); /* docid descending, as trec_eval breaks ties */
}

/* One stable merge sort, instantiated per item type so that its comparison inlines:
 * DEFINE_MERGE_SORT(name, Item, Context, before) defines ``name(items, scratch, n, context)``, sorting ``n``
 * items with ``before(a, b, context)`` true when ``a`` must come before ``b`` (insertion sort for the small
 * runs that are the rule; two runs already in order are not merged). ``scratch`` holds ``n / 2 + 1`` items. */
#define DEFINE_MERGE_SORT(name, Item, Context, before)                                                          \
    static void name(Item *items, Item *scratch, int64_t n, Context context) {                                 \
        if (n <= 16) {                                                                                          \
            for (int64_t i = 1; i < n; i++) {                                                                   \
                Item held = items[i];                                                                           \
                int64_t j = i;                                                                                  \
                for (; j > 0 && before(&held, &items[j - 1], context); j--) {                                   \
                    items[j] = items[j - 1];                                                                    \
                }                                                                                               \
                items[j] = held;                                                                                \
            }                                                                                                   \
            return;                                                                                             \
        }                                                                                                       \
        int64_t half = n / 2, left = 0, right = half, k = 0;                                                    \
        name(items, scratch, half, context);                                                                    \
        name(items + half, scratch, n - half, context);                                                         \
        if (!before(&items[half], &items[half - 1], context)) {                                                 \
            return;                                                                                             \
        }                                                                                                       \
        memcpy(scratch, items, (size_t)half * sizeof(Item)); /* the left run; the right one merges in place */ \
        while (left < half && right < n) {                                                                      \
            items[k++] = before(&items[right], &scratch[left], context) ? items[right++] : scratch[left++];      \
        }                                                                                                       \
        memcpy(items + k, scratch + left, (size_t)(half - left) * sizeof(Item));                                \
    }

static inline int tied_before(const Tied *a, const Tied *b, const TieOrder *order) {
    return compare_tied(a, b, order) < 0;
}

DEFINE_MERGE_SORT(sort_tied, Tied, const TieOrder *, tied_before)

static PyObject *order_tied(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *views_object, *buffers_object, *members_object, *opens_object, *grades_object;
    int best;
    if (!PyArg_ParseTuple(args, "OOOOOp", &views_object, &buffers_object, &members_object, &opens_object,
                          &grades_object, &best)) {
        return NULL;
    }
    Py_buffer views = {0}, members = {0}, opens = {0}, grades = {0};
    Py_buffer *data = NULL;
    Strings strings = {0};
    Tied *items = NULL;
    PyObject *result = NULL;
    if (!strings_from(views_object, buffers_object, &views, &data, &strings) ||
        PyObject_GetBuffer(members_object, &members, PyBUF_SIMPLE) < 0 ||
        PyObject_GetBuffer(opens_object, &opens, PyBUF_SIMPLE) < 0 ||
        (grades_object != Py_None && PyObject_GetBuffer(grades_object, &grades, PyBUF_SIMPLE) < 0)) {
        goto done;
    }
    int64_t count = members.len / 8, rows = views.len / VIEW;
    const int64_t *member = members.buf;
    const uint8_t *open = opens.buf;
    int fits = opens.len == count && (!grades.obj || grades.len / 4 == rows);
    for (int64_t i = 0; fits && i < count; i++) {
        fits = member[i] >= 0 && member[i] < rows;
    }
    if (!fits) {
        PyErr_SetString(PyExc_ValueError, "order_tied: members, group starts and grades do not fit the views");
        goto done;
    }
    items = PyMem_Malloc((size_t)(count ? count : 1) * 2 * sizeof(Tied)); /* the items, then scratch space */
    result = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(count * 8));
    if (!items || !result) {
        Py_CLEAR(result);
        if (!items) {
            PyErr_NoMemory();
        }
        goto done;
    }
    TieOrder order = {&strings, grades.obj ? grades.buf : NULL, best, 0};
    int64_t *out = (int64_t *)PyByteArray_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 0; i < count && !order.bad; i++) {
        items[i].row = member[i];
        items[i].grade = order.grades ? order.grades[member[i]] : 0;
        items[i].bytes = string_at(&strings, member[i], &items[i].length);
        order.bad |= items[i].bytes == NULL;
    }
    for (int64_t start = 0; start < count && !order.bad;) {
        int64_t stop = start + 1;
        while (stop < count && !open[stop]) {
            stop++;
        }
        sort_tied(items + start, items + count, stop - start, &order);
        start = stop;
    }
    for (int64_t i = 0; i < count && !order.bad; i++) { /* past a bad view the items were never filled */
        out[i] = items[i].row;
    }
    Py_END_ALLOW_THREADS
    if (order.bad) {
        Py_CLEAR(result);
        PyErr_SetString(PyExc_ValueError, "order_tied: a string view points outside its buffers");
    }
done:
    PyMem_Free(items);
    strings_release(&views, data, &strings);
    for (Py_buffer *b = &members; b; b = b == &members ? &opens : b == &opens ? &grades : NULL) {
        if (b->obj) {
            PyBuffer_Release(b);
        }
    }
    return result;
}

/* ---- rows of each query by score ------------------------------------------------------------- */

/* Rows by score, highest first; the sort is stable, so equal scores keep their input order. A query's rows
 * are sorted as (score, row) pairs in a buffer of the longest query's length, queries split among threads by
 * rows. */
typedef struct {
    double score;
    int64_t row;
} Scored;

static inline int scored_before(const Scored *a, const Scored *b, const void *unused) {
    (void)unused;
    return a->score > b->score;
}

DEFINE_MERGE_SORT(sort_scored, Scored, const void *, scored_before)

typedef struct {
    const double *score;
    const int64_t *length;
    int64_t first_query, end_query, first_row, longest;
    int64_t *out;
    int failed;
} ScoreShare;

static void *sort_share(void *arg) {
    ScoreShare *share = arg;
    Scored *items = malloc((size_t)(share->longest + share->longest / 2 + 2) * sizeof(Scored));
    if (!items) {
        share->failed = 1;
        return NULL;
    }
    Scored *scratch = items + share->longest + 1;
    for (int64_t q = share->first_query, start = share->first_row; q < share->end_query; start += share->length[q++]) {
        int64_t n = share->length[q];
        for (int64_t i = 0; i < n; i++) {
            items[i].score = share->score[start + i], items[i].row = start + i;
        }
        sort_scored(items, scratch, n, NULL);
        for (int64_t i = 0; i < n; i++) {
            share->out[start + i] = items[i].row;
        }
    }
    free(items);
    return NULL;
}

static PyObject *order_by_score(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *scores_object, *lengths_object;
    int threads;
    if (!PyArg_ParseTuple(args, "OOi", &scores_object, &lengths_object, &threads)) {
        return NULL;
    }
    Py_buffer scores = {0}, lengths = {0};
    PyObject *result = NULL;
    if (PyObject_GetBuffer(scores_object, &scores, PyBUF_SIMPLE) < 0 ||
        PyObject_GetBuffer(lengths_object, &lengths, PyBUF_SIMPLE) < 0) {
        goto done;
    }
    int64_t rows = scores.len / 8, queries = lengths.len / 8, total = 0, longest = 0;
    const int64_t *length = lengths.buf;
    for (int64_t q = 0; q < queries; q++) {
        if (length[q] < 0) {
            total = -1;
            break;
        }
        total += length[q];
        longest = length[q] > longest ? length[q] : longest;
    }
    if (total != rows) {
        PyErr_SetString(PyExc_ValueError, "order_by_score: the query lengths do not add up to the scores");
        goto done;
    }
    result = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(rows * 8));
    if (!result) {
        goto done;
    }
    threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    ScoreShare shares[MAX_THREADS];
    pthread_t workers[MAX_THREADS];
    int started[MAX_THREADS] = {0}, failed = 0, count = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t q = 0, row = 0; count < threads && (q < queries || count == 0); count++) {
        ScoreShare *share = &shares[count]; /* about rows / threads rows each; the last takes what is left */
        *share = (ScoreShare){scores.buf, length, q, q, row, longest, (int64_t *)PyByteArray_AS_STRING(result), 0};
        int64_t goal = rows / threads * (count + 1);
        while (share->end_query < queries && (count == threads - 1 || row < goal)) {
            row += length[share->end_query++];
        }
        q = share->end_query;
    }
    for (int i = 1; i < count; i++) {
        started[i] = pthread_create(&workers[i], NULL, sort_share, &shares[i]) == 0;
    }
    sort_share(&shares[0]);
    for (int i = 1; i < count; i++) {
        if (started[i]) {
            pthread_join(workers[i], NULL);
        } else {
            sort_share(&shares[i]);
        }
    }
    for (int i = 0; i < count; i++) {
        failed |= shares[i].failed;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        Py_CLEAR(result);
        PyErr_NoMemory();
    }
done:
    for (Py_buffer *b = &scores; b; b = b == &scores ? &lengths : NULL) {
        if (b->obj) {
            PyBuffer_Release(b);
        }
    }
    return result;
}

/* ---- {qid: {docid: value}} dicts ------------------------------------------------------------- */

/* The value of a run (a float or an int, as a double) or a qrels (an int) into ``out``; 0 when it is not one
 * (a bool, a numpy scalar, an int past 64 bits as a grade), so the Python path converts or refuses it. */
static int nested_value(PyObject *value, int integer, uint8_t *out) {
    if (integer) {
        if (!PyLong_CheckExact(value)) {
            return 0;
        }
        int overflow = 0;
        long long grade = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow || (grade == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        }
        int64_t wide = grade;
        memcpy(out, &wide, 8);
        return 1;
    }
    if (!PyFloat_CheckExact(value) && !PyLong_CheckExact(value)) {
        return 0;
    }
    double score = PyFloat_CheckExact(value) ? PyFloat_AS_DOUBLE(value) : PyLong_AsDouble(value);
    if (score == -1.0 && PyErr_Occurred()) { /* an int too large for a double */
        PyErr_Clear();
        return 0;
    }
    memcpy(out, &score, 8);
    return 1;
}

/* A str's UTF-8 bytes as a view; 0 when it is not an exact str or cannot be encoded (a lone surrogate). */
static int nested_key(Chunk *chunk, uint8_t *view, PyObject *key) {
    Py_ssize_t n;
    const char *bytes = PyUnicode_CheckExact(key) ? PyUnicode_AsUTF8AndSize(key, &n) : NULL;
    if (!bytes) {
        PyErr_Clear();
        return 0;
    }
    return write_view(chunk, view, (const uint8_t *)bytes, (size_t)n);
}

static PyObject *flatten_nested(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *outer, *qid, *inner, *docid, *value;
    int integer;
    if (!PyArg_ParseTuple(args, "O!p", &PyDict_Type, &outer, &integer)) {
        return NULL;
    }
    Py_ssize_t queries = PyDict_GET_SIZE(outer), rows = 0, at = 0;
    while (PyDict_Next(outer, &at, &qid, &inner)) {
        if (!PyDict_CheckExact(inner)) {
            Py_RETURN_NONE;
        }
        rows += PyDict_GET_SIZE(inner);
    }
    PyObject *qids = PyByteArray_FromStringAndSize(NULL, rows * VIEW);
    PyObject *docids = PyByteArray_FromStringAndSize(NULL, rows * VIEW);
    PyObject *values = PyByteArray_FromStringAndSize(NULL, rows * 8);
    PyObject *lengths = PyByteArray_FromStringAndSize(NULL, queries * 8);
    PyObject *result = NULL, *buffers = NULL;
    Chunk chunk = {0};
    if (!qids || !docids || !values || !lengths) {
        goto done;
    }
    uint8_t *qid_views = (uint8_t *)PyByteArray_AS_STRING(qids), *docid_views = (uint8_t *)PyByteArray_AS_STRING(docids);
    uint8_t *value_bytes = (uint8_t *)PyByteArray_AS_STRING(values);
    int64_t *length = (int64_t *)PyByteArray_AS_STRING(lengths);
    Py_ssize_t row = 0, query = 0;
    at = 0;
    while (PyDict_Next(outer, &at, &qid, &inner)) {
        uint8_t first[VIEW];
        if (!nested_key(&chunk, first, qid)) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        Py_ssize_t inner_at = 0, start = row;
        while (PyDict_Next(inner, &inner_at, &docid, &value)) {
            if (!nested_key(&chunk, docid_views + VIEW * row, docid) || !nested_value(value, integer, value_bytes + 8 * row)) {
                result = Py_NewRef(Py_None);
                goto done;
            }
            memcpy(qid_views + VIEW * row++, first, VIEW); /* the qid's bytes are written once, its view repeated */
        }
        length[query++] = row - start;
    }
    buffers = PyList_New(1);
    PyObject *data = buffers ? PyBytes_FromStringAndSize((const char *)chunk.data, (Py_ssize_t)chunk.data_size) : NULL;
    if (!data) {
        goto done;
    }
    PyList_SET_ITEM(buffers, 0, data);
    result = Py_BuildValue("(nOOOOO)", rows, qids, docids, values, buffers, lengths);
done:
    free(chunk.data);
    Py_XDECREF(qids);
    Py_XDECREF(docids);
    Py_XDECREF(values);
    Py_XDECREF(lengths);
    Py_XDECREF(buffers);
    return result;
}

/* Randomised Tukey HSD: for each permutation, every query's k scores shuffled among the systems, and the
 * range (max - min) of the systems' means. Permutation p draws from its own splitmix64 stream, seeded with
 * seeds[p], so the answer does not depend on the number of threads. Each
 * query takes one 64-bit draw and shuffles by Fisher-Yates, the swap index j in [0, i] taken as the high
 * word of draw * (i + 1) and the low word kept for the next step (batched ranged draws: for k <= 20 the
 * bias is below k! / 2^64). The shuffle carries over from query to query, which leaves each query's
 * order uniform and independent of the others'. */
#define TUKEY_MAX_SYSTEMS 256

typedef struct {
    const double *x;
    const uint64_t *seeds;
    int64_t n, k, first, end;
    double *ranges;
} TukeyShare;

static inline uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void *tukey_share(void *arg) {
    TukeyShare *t = arg;
    const int64_t n = t->n, k = t->k;
    double sums[TUKEY_MAX_SYSTEMS];
    int order[TUKEY_MAX_SYSTEMS];
    for (int64_t p = t->first; p < t->end; p++) {
        uint64_t state = t->seeds[p];
        for (int64_t s = 0; s < k; s++) {
            sums[s] = 0.0;
            order[s] = (int)s;
        }
        for (int64_t q = 0; q < n; q++) {
            uint64_t draw = splitmix64(&state);
            for (int64_t i = k - 1; i > 0; i--) {
                __uint128_t product = (__uint128_t)draw * (uint64_t)(i + 1);
                int64_t j = (int64_t)(product >> 64);
                draw = (uint64_t)product;
                int swap = order[i];
                order[i] = order[j];
                order[j] = swap;
            }
            const double *row = t->x + q * k;
            for (int64_t s = 0; s < k; s++) {
                sums[s] += row[order[s]];
            }
        }
        double low = sums[0], high = sums[0];
        for (int64_t s = 1; s < k; s++) {
            low = sums[s] < low ? sums[s] : low;
            high = sums[s] > high ? sums[s] : high;
        }
        t->ranges[p] = (high - low) / (double)n;
    }
    return NULL;
}

static PyObject *tukey_ranges(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *x_object, *seeds_object;
    long long n, k;
    int threads;
    if (!PyArg_ParseTuple(args, "OLLOi", &x_object, &n, &k, &seeds_object, &threads)) {
        return NULL;
    }
    Py_buffer x = {0}, seeds = {0};
    PyObject *result = NULL;
    if (PyObject_GetBuffer(x_object, &x, PyBUF_SIMPLE) < 0 || PyObject_GetBuffer(seeds_object, &seeds, PyBUF_SIMPLE) < 0) {
        goto done;
    }
    int64_t permutations = (int64_t)(seeds.len / 8);
    if (n < 1 || k < 2 || k > TUKEY_MAX_SYSTEMS || x.len != (Py_ssize_t)(n * k * 8) || permutations < 1) {
        PyErr_SetString(PyExc_ValueError, "tukey_ranges: the scores, systems or seeds do not agree");
        goto done;
    }
    result = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(permutations * 8));
    if (!result) {
        goto done;
    }
    threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    threads = permutations < threads ? (int)permutations : threads;
    TukeyShare shares[MAX_THREADS];
    pthread_t workers[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < threads; i++) {
        shares[i] = (TukeyShare){x.buf, seeds.buf, n, k, permutations * i / threads, permutations * (i + 1) / threads,
                                 (double *)PyByteArray_AS_STRING(result)};
    }
    for (int i = 1; i < threads; i++) {
        started[i] = pthread_create(&workers[i], NULL, tukey_share, &shares[i]) == 0;
    }
    tukey_share(&shares[0]);
    for (int i = 1; i < threads; i++) {
        if (started[i]) {
            pthread_join(workers[i], NULL);
        } else {
            tukey_share(&shares[i]);
        }
    }
    Py_END_ALLOW_THREADS
done:
    if (x.obj) {
        PyBuffer_Release(&x);
    }
    if (seeds.obj) {
        PyBuffer_Release(&seeds);
    }
    return result;
}

/* running_sums(values, offsets): per row, the sum of its query's values up to it, added left to right
   (each query on its own, as trec_eval adds), as float64 bytes. */
static PyObject *running_sums(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *values_object, *offsets_object;
    if (!PyArg_ParseTuple(args, "OO", &values_object, &offsets_object)) {
        return NULL;
    }
    Py_buffer values = {0}, offsets = {0};
    PyObject *result = NULL;
    if (PyObject_GetBuffer(values_object, &values, PyBUF_SIMPLE) < 0 ||
        PyObject_GetBuffer(offsets_object, &offsets, PyBUF_SIMPLE) < 0) {
        goto done;
    }
    Py_ssize_t rows = values.len / 8, queries = offsets.len / 8 - 1;
    const double *in = values.buf;
    const int64_t *at = offsets.buf;
    if (values.len % 8 || offsets.len % 8 || queries < 0 || at[0] != 0 || at[queries] != rows) {
        PyErr_SetString(PyExc_ValueError, "running_sums: the offsets do not cover the values");
        goto done;
    }
    for (Py_ssize_t q = 0; q < queries; q++) {
        if (at[q + 1] < at[q]) {
            PyErr_SetString(PyExc_ValueError, "running_sums: the offsets decrease");
            goto done;
        }
    }
    result = PyByteArray_FromStringAndSize(NULL, rows * 8);
    if (!result) {
        goto done;
    }
    double *out = (double *)PyByteArray_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t q = 0; q < queries; q++) {
        if (at[q] == at[q + 1]) {
            continue;
        }
        double sum = in[at[q]];  /* the first term as it is, as np.add.accumulate starts */
        out[at[q]] = sum;
        for (int64_t i = at[q] + 1; i < at[q + 1]; i++) {
            sum += in[i];
            out[i] = sum;
        }
    }
    Py_END_ALLOW_THREADS
done:
    if (values.obj) {
        PyBuffer_Release(&values);
    }
    if (offsets.obj) {
        PyBuffer_Release(&offsets);
    }
    return result;
}

/* A growing byte buffer for trec_block. */
typedef struct {
    char *data;
    size_t length, capacity;
} Text;

static int text_add(Text *text, const char *bytes, size_t length) {
    if (text->length + length > text->capacity) {
        size_t capacity = text->capacity ? text->capacity : 1 << 20;
        while (capacity < text->length + length) {
            capacity *= 2;
        }
        char *grown = realloc(text->data, capacity);
        if (!grown) {
            return -1;
        }
        text->data = grown;
        text->capacity = capacity;
    }
    memcpy(text->data + text->length, bytes, length);
    text->length += length;
    return 0;
}

/* The decimal digits of n at the end of the buffer ending at end; returns where they start. */
static char *digits_before(char *end, uint64_t n) {
    do {
        *--end = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    return end;
}

/* "%6.4f" of a finite double whose magnitude is below 4.5e11, as printf writes it: the exact binary value
   rounded to four decimals, an exact half to even. v * 10000 is the rounded product p plus the exact error e
   (fma), and p < 2^52, so rounding p to the integer n is right unless p lies exactly halfway, where e's sign
   decides. The integer part has at least one digit, so the text is never shorter than the width of 6. */
static Py_ssize_t fixed4(double v, char *cell) {
    double a = fabs(v), p = a * 10000.0, e = fma(a, 10000.0, -p), n = nearbyint(p), d = p - n;
    if (d == 0.5 && e > 0) {
        n += 1;
    } else if (d == -0.5 && e < 0) {
        n -= 1;
    }
    uint64_t units = (uint64_t)n;
    char buffer[32], *end = buffer + sizeof buffer, *start;
    for (int i = 0; i < 4; i++) {
        *--end = (char)('0' + units % 10);
        units /= 10;
    }
    *--end = '.';
    start = digits_before(end, units);
    if (signbit(v)) {
        *--start = '-';
    }
    Py_ssize_t length = buffer + sizeof buffer - start;
    memcpy(cell, start, (size_t)length);
    return length;
}

/* "%lld" of a count held in a double within int64's range (a fraction truncated, as C's cast does). */
static Py_ssize_t count_text(double v, char *cell) {
    long long count = (long long)v;
    uint64_t magnitude = count < 0 ? (uint64_t)0 - (uint64_t)count : (uint64_t)count;
    char buffer[24], *end = buffer + sizeof buffer, *start = digits_before(end, magnitude);
    if (count < 0) {
        *--start = '-';
    }
    Py_ssize_t length = end - start;
    memcpy(cell, start, (size_t)length);
    return length;
}

/* trec_block(prefixes, qids, columns, kinds): trec_eval's per-query lines, query by query, each query's in
   column order: prefix, qid, a tab, the cell, a newline. A cell is "%6.4f" of a float64 (kind 'f'; NaN as
   Python prints it, "   nan"), "%lld" of a float64 holding a count (kind 'i') or the text itself (kind 's', a
   list of str). None when a count is not finite or lies outside int64's range (a fraction is truncated, as
   Python's int() does): Python's renderer decides. */
static PyObject *trec_block(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *prefixes, *qids, *columns;
    const char *kinds;
    Py_ssize_t num_kinds;
    if (!PyArg_ParseTuple(args, "O!O!O!s#", &PyList_Type, &prefixes, &PyList_Type, &qids, &PyList_Type, &columns,
                          &kinds, &num_kinds)) {
        return NULL;
    }
    Py_ssize_t width = PyList_GET_SIZE(columns), queries = PyList_GET_SIZE(qids);
    if (PyList_GET_SIZE(prefixes) != width || num_kinds != width) {
        PyErr_SetString(PyExc_ValueError, "trec_block: one prefix and one kind per column");
        return NULL;
    }
    Py_buffer *numbers = PyMem_Calloc((size_t)(width ? width : 1), sizeof(Py_buffer));
    const char **prefix = PyMem_Calloc((size_t)(width ? width : 1), sizeof(char *));
    Py_ssize_t *prefix_length = PyMem_Calloc((size_t)(width ? width : 1), sizeof(Py_ssize_t));
    Text text = {0};
    PyObject *result = NULL;
    locale_t previous = (locale_t)0;
    if (!numbers || !prefix || !prefix_length) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t c = 0; c < width; c++) {
        prefix[c] = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(prefixes, c), &prefix_length[c]);
        if (!prefix[c]) {
            goto done;
        }
        PyObject *column = PyList_GET_ITEM(columns, c);
        if (kinds[c] == 's') {
            if (!PyList_Check(column) || PyList_GET_SIZE(column) != queries) {
                PyErr_SetString(PyExc_ValueError, "trec_block: a text column needs one str per query");
                goto done;
            }
        } else if (kinds[c] == 'f' || kinds[c] == 'i') {
            if (PyObject_GetBuffer(column, &numbers[c], PyBUF_SIMPLE) < 0) {
                goto done;
            }
            if (numbers[c].len != queries * 8) {
                PyErr_SetString(PyExc_ValueError, "trec_block: a number column needs one float64 per query");
                goto done;
            }
            const double *values = numbers[c].buf;
            for (Py_ssize_t q = 0; kinds[c] == 'i' && q < queries; q++) {
                if (!(values[q] > -9.2e18 && values[q] < 9.2e18)) {
                    result = Py_NewRef(Py_None);
                    goto done;
                }
            }
        } else {
            PyErr_SetString(PyExc_ValueError, "trec_block: kinds are 'f', 'i' or 's'");
            goto done;
        }
    }
    previous = uselocale(c_locale);
    char cell[512];
    for (Py_ssize_t q = 0; q < queries; q++) {
        Py_ssize_t qid_length;
        const char *qid = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(qids, q), &qid_length);
        if (!qid) {
            goto done;
        }
        for (Py_ssize_t c = 0; c < width; c++) {
            const char *value = cell;
            Py_ssize_t length;
            if (kinds[c] == 's') {
                value = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(PyList_GET_ITEM(columns, c), q), &length);
                if (!value) {
                    goto done;
                }
            } else {
                double v = ((const double *)numbers[c].buf)[q];
                if (kinds[c] == 'i') {
                    length = count_text(v, cell);
                } else if (v != v) {
                    length = snprintf(cell, sizeof cell, "   nan");
                } else if (fabs(v) < 4.5e11) {
                    length = fixed4(v, cell);
                } else {
                    length = snprintf(cell, sizeof cell, "%6.4f", v);
                }
            }
            if (text_add(&text, prefix[c], (size_t)prefix_length[c]) < 0 ||
                text_add(&text, qid, (size_t)qid_length) < 0 || text_add(&text, "\t", 1) < 0 ||
                text_add(&text, value, (size_t)length) < 0 || text_add(&text, "\n", 1) < 0) {
                PyErr_NoMemory();
                goto done;
            }
        }
    }
    result = PyUnicode_DecodeUTF8(text.data ? text.data : "", (Py_ssize_t)text.length, "strict");
done:
    if (previous) {
        uselocale(previous);
    }
    for (Py_ssize_t c = 0; numbers && c < width; c++) {
        if (numbers[c].obj) {
            PyBuffer_Release(&numbers[c]);
        }
    }
    PyMem_Free(numbers);
    PyMem_Free(prefix);
    PyMem_Free(prefix_length);
    free(text.data);
    return result;
}

static PyMethodDef methods[] = {
    {"parse_trec", parse_trec, METH_VARARGS,
     "parse_trec(text, value_field, min_fields, max_fields, integer, release, threads, indented_comments=False) -> "
     "(rows, qid_views, docid_views, values, buffers) or None when the strict parser must decide."},
    {"scan_queries", scan_queries, METH_VARARGS,
     "scan_queries(views, buffers, offsets, judged_views, judged_buffers, judged_rows, starts, ends, repeats, "
     "threads) -> "
     "(first repeated row or -1, matched run rows, their judgment rows (both None unless matching))."},
    {"order_by_score", order_by_score, METH_VARARGS,
     "order_by_score(scores, lengths, threads) -> each query's rows by score, highest first, ties in input order."},
    {"flatten_nested", flatten_nested, METH_VARARGS,
     "flatten_nested(dict, integer) -> (rows, qid_views, docid_views, values, buffers, lengths) or None when the "
     "Python path must convert or refuse a key or value."},
    {"tukey_ranges", tukey_ranges, METH_VARARGS,
     "tukey_ranges(scores, queries, systems, seeds, threads) -> the range of the systems' means under the "
     "within-query permutation each seed draws (float64 bytes)."},
    {"trec_block", trec_block, METH_VARARGS,
     "trec_block(prefixes, qids, columns, kinds) -> trec_eval's per-query lines as one str, or None when Python's "
     "renderer must decide."},
    {"running_sums", running_sums, METH_VARARGS,
     "running_sums(values, offsets) -> per row, its query's sum of float64 values up to it, left to right "
     "(float64 bytes)."},
    {"order_tied", order_tied, METH_VARARGS,
     "order_tied(views, buffers, members, opens, grades, best) -> the rows of each tied group in rank order."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "judged._native", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
    init_classes();
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!c_locale) {
        return PyErr_NoMemory();
    }
    PyObject *created = PyModule_Create(&module);
    TextShrank = created ? PyErr_NewException("judged._native.TextShrank", PyExc_OSError, NULL) : NULL;
    if (!TextShrank || PyModule_AddObjectRef(created, "TextShrank", TextShrank) < 0) {
        Py_XDECREF(created);
        return NULL;
    }
    return created;
}
