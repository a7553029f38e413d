/* scan_queries: for a run grouped by query, the first row repeating a docid of its query and, given the
 * judgments of each query, the judgment row of every run row, matched exactly on the docid bytes. Each
 * query's strings go into an open-addressing table; the queries are split among the pool's threads in
 * contiguous shares of about equal rows, so the shares' matches, one after another, are in run order. */
#include "native.h"

#include <stdlib.h>

static uint64_t hash_bytes(const uint8_t *s, int32_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t word;
        memcpy(&word, s + i, 8);
        h = mix64(h ^ word);
    }
    if (i < n) {
        uint64_t word = 0;
        memcpy(&word, s + i, (size_t)(n - i));
        h = mix64(h ^ word);
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

static void scan_share(void *scans, int share) {
    Scan *scan = (Scan *)scans + share;
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
}

PyObject *scan_queries(PyObject *self, PyObject *args) {
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
    threads = pool_threads(threads);
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
    pool_run(threads, threads, scan_share, scans);
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
        int64_t k = 0;
        for (int t = 0; t < threads; t++) {
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
    buffer_release(&offsets);
    buffer_release(&judged_rows);
    buffer_release(&starts);
    buffer_release(&ends);
    return result;
}
