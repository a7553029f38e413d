/* order_by_score and order_tied: each query's rows by score, highest first (a stable sort: equal scores keep
 * their input order, as trec_eval sorts each query), and the rows of each group of tied scores in rank order
 * (by grade for the worst and best cases, then docid descending as trec_eval breaks ties). */
#include "native.h"

#include <stdlib.h>

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

static inline int tied_before(const Tied *a, const Tied *b, const TieOrder *order) {
    return compare_tied(a, b, order) < 0;
}

DEFINE_MERGE_SORT(sort_tied, Tied, const TieOrder *, tied_before)

PyObject *order_tied(PyObject *self, PyObject *args) {
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
    buffer_release(&members);
    buffer_release(&opens);
    buffer_release(&grades);
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

static void sort_share(void *shares, int i) {
    ScoreShare *share = (ScoreShare *)shares + i;
    Scored *items = malloc((size_t)(share->longest + share->longest / 2 + 2) * sizeof(Scored));
    if (!items) {
        share->failed = 1;
        return;
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
}

PyObject *order_by_score(PyObject *self, PyObject *args) {
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
    threads = pool_threads(threads);
    ScoreShare shares[MAX_THREADS];
    int failed = 0, count = 0;
    for (int64_t q = 0, row = 0; count < threads && (q < queries || count == 0); count++) {
        ScoreShare *share = &shares[count]; /* about rows / threads rows each; the last takes what is left */
        *share = (ScoreShare){scores.buf, length, q, q, row, longest, (int64_t *)PyByteArray_AS_STRING(result), 0};
        int64_t goal = rows / threads * (count + 1);
        while (share->end_query < queries && (count == threads - 1 || row < goal)) {
            row += length[share->end_query++];
        }
        q = share->end_query;
    }
    pool_run(count, count, sort_share, shares);
    for (int i = 0; i < count; i++) {
        failed |= shares[i].failed;
    }
    if (failed) {
        Py_CLEAR(result);
        PyErr_NoMemory();
    }
done:
    buffer_release(&scores);
    buffer_release(&lengths);
    return result;
}
