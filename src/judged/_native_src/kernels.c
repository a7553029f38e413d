/* The numeric kernels: tukey_ranges, the permutations of the randomised Tukey HSD, and running_sums, each
 * query's running sums added left to right as trec_eval adds. */
#include "native.h"

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

static inline uint64_t splitmix64(uint64_t *state) { return mix64(*state += 0x9E3779B97F4A7C15ULL); }

static void tukey_share(void *shares, int share) {
    TukeyShare *t = (TukeyShare *)shares + share;
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
}

PyObject *tukey_ranges(PyObject *self, PyObject *args) {
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
    threads = pool_threads(threads);
    threads = permutations < threads ? (int)permutations : threads;
    TukeyShare shares[MAX_THREADS];
    for (int i = 0; i < threads; i++) {
        shares[i] = (TukeyShare){x.buf, seeds.buf, n, k, permutations * i / threads, permutations * (i + 1) / threads,
                                 (double *)PyByteArray_AS_STRING(result)};
    }
    pool_run(threads, threads, tukey_share, shares);
done:
    buffer_release(&x);
    buffer_release(&seeds);
    return result;
}

/* running_sums(values, offsets): per row, the sum of its query's values up to it, added left to right
   (each query on its own, as trec_eval adds), as float64 bytes. */
PyObject *running_sums(PyObject *self, PyObject *args) {
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
    buffer_release(&values);
    buffer_release(&offsets);
    return result;
}
