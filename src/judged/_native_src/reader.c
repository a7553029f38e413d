/* parse_trec: split a TREC run or qrels text into Arrow string-view columns (qid, docid) and a value
 * column (score or grade), on every core. It takes only what the strict Python parser would read the same
 * way and returns None for anything else (a short line, a control byte, invalid UTF-8, an unusual number, a
 * byte-order mark), so the strict parser decides every doubtful case and names the line. A mapped file that
 * shrinks while it is read raises TextShrank instead of killing the process with SIGBUS (mapping.c).
 *
 * The text is cut into chunks of whole lines, one chunk a share of the thread pool; each chunk's lines are
 * counted, then parsed (lines.c) into its rows of the output columns and its long strings into its own data
 * buffer; the rows are then closed up into one column each. */
#include "native.h"

#include <stdlib.h>

#define CHUNK_BYTES ((size_t)1 << 30) /* most chunks' long strings stay below 2^31 bytes (write_view checks) */

/* work on one chunk; a SIGBUS while it reads a mapping marks the chunk shrunk instead of ending the process. */
static void guarded(Chunk *chunk, void (*work)(void *)) {
    if (!chunk->release) {
        work(chunk);
    } else if (shrink_guarded(work, chunk)) {
        chunk->failed = chunk->shrank = 1;
    }
}

static void count_share(void *chunks, int i) { guarded((Chunk *)chunks + i, count_lines); }

static void parse_share(void *chunks, int i) { guarded((Chunk *)chunks + i, parse_chunk); }

enum { SPLIT_DONE, SPLIT_SHRANK, SPLIT_MARKED };

typedef struct {
    Chunk *chunks;
    int count;
    const Format *format;
    const uint8_t *bytes;
    size_t size;
    int release;
    int marked; /* out: the text starts with a UTF-8 byte-order mark (and was not cut) */
} Cuts;

/* Cut the text into count chunks of whole lines, unless it starts with a UTF-8 byte-order mark. */
static void cut_chunks(void *arg) {
    Cuts *cuts = arg;
    const uint8_t *bytes = cuts->bytes, *p = bytes, *end = bytes + cuts->size;
    size_t size = cuts->size;
    int count = cuts->count;
    cuts->marked = size >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0;
    for (int i = 0; i < count && !cuts->marked; i++) {
        const uint8_t *stop = i == count - 1 ? end : bytes + size / (size_t)count * (size_t)(i + 1);
        if (stop < p) {
            stop = p;
        }
        if (stop < end && stop > bytes && stop[-1] != '\n') {
            stop = line_end(stop, end);
            stop = stop < end ? stop + 1 : end;
        }
        cuts->chunks[i] = (Chunk){.format = cuts->format, .begin = p, .end = stop, .data = {.index = i},
                                  .release = cuts->release};
        p = stop;
    }
}

/* The cuts read the mapping too: guarded when the text is one. */
static int split_chunks(Chunk *chunks, int count, const Format *format, const uint8_t *bytes, size_t size,
                        int release) {
    Cuts cuts = {chunks, count, format, bytes, size, release, 0};
    if (!release) {
        cut_chunks(&cuts);
    } else if (shrink_guarded(cut_chunks, &cuts)) {
        return SPLIT_SHRANK;
    }
    return cuts.marked ? SPLIT_MARKED : SPLIT_DONE;
}

PyObject *parse_trec(PyObject *self, PyObject *args) {
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
    if (release && !(guarding = shrink_guard_begin())) {
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
    pool_run(count, threads, count_share, chunks);
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
    pool_run(count, threads, parse_share, chunks);
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
        PyObject *data = PyBytes_FromStringAndSize((const char *)chunks[i].data.bytes, (Py_ssize_t)chunks[i].data.size);
        if (!data) {
            goto done;
        }
        PyList_SET_ITEM(buffers, i, data);
    }
    result = Py_BuildValue("(LOOOO)", (long long)rows, qids, docids, values, buffers);
done:
    if (guarding) {
        shrink_guard_end();
    }
    if (chunks) {
        for (int i = 0; i < count; i++) {
            free(chunks[i].data.bytes);
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
