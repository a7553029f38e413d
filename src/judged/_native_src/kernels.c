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

/* resampled_means(data, series, queries, indices, threads): the bootstrap's resampled means. ``data`` holds
 * each query's values of every series (queries x series, float64), ``indices`` rows of ``queries`` draws
 * (int64, each in [0, queries)); the result is, for series s and row r, the mean of data[indices[r][j]][s]
 * over j, as float64 bytes series-major (series x rows). Each sum is numpy's pairwise sum, step for step
 * (eight accumulators under 128 values, halves at multiples of 8 above), over the gathered values in draw
 * order, then divided by ``queries``: the bits numpy's take then mean(axis=1) give, without writing the
 * gathered values. Rows are split among threads; each row is summed by one, so the bits do not depend on
 * their number. */
#define RESAMPLE_SERIES 32 /* series summed together in one pass over a row's draws */

typedef struct {
    const double *data;
    const int64_t *indices;
    int64_t series, queries, rows;
    double *out;
    int threads;
} ResampleWork;

static void pairwise_gathered(const double *data, int64_t stride, const int64_t *ix, int64_t n, int64_t first,
                              int64_t width, double *sum) {
    if (n < 8) {
        for (int64_t s = 0; s < width; s++) {
            double res = -0.0;
            for (int64_t i = 0; i < n; i++) {
                res += data[ix[i] * stride + first + s];
            }
            sum[s] = res;
        }
        return;
    }
    if (n <= 128) {
        double r[8][RESAMPLE_SERIES];
        for (int j = 0; j < 8; j++) {
            const double *row = data + ix[j] * stride + first;
            for (int64_t s = 0; s < width; s++) {
                r[j][s] = row[s];
            }
        }
        int64_t i = 8;
        for (; i < n - (n % 8); i += 8) {
            for (int j = 0; j < 8; j++) {
                const double *row = data + ix[i + j] * stride + first;
                for (int64_t s = 0; s < width; s++) {
                    r[j][s] += row[s];
                }
            }
        }
        for (int64_t s = 0; s < width; s++) {
            double res = ((r[0][s] + r[1][s]) + (r[2][s] + r[3][s])) + ((r[4][s] + r[5][s]) + (r[6][s] + r[7][s]));
            for (int64_t k = i; k < n; k++) {
                res += data[ix[k] * stride + first + s];
            }
            sum[s] = res;
        }
        return;
    }
    int64_t half = n / 2;
    half -= half % 8;
    double right[RESAMPLE_SERIES];
    pairwise_gathered(data, stride, ix, half, first, width, sum);
    pairwise_gathered(data, stride, ix + half, n - half, first, width, right);
    for (int64_t s = 0; s < width; s++) {
        sum[s] += right[s];
    }
}

static void resample_share(void *context, int share) {
    const ResampleWork *w = context;
    double sum[RESAMPLE_SERIES];
    for (int64_t r = share; r < w->rows; r += w->threads) {
        const int64_t *ix = w->indices + r * w->queries;
        for (int64_t first = 0; first < w->series; first += RESAMPLE_SERIES) {
            int64_t width = w->series - first < RESAMPLE_SERIES ? w->series - first : RESAMPLE_SERIES;
            pairwise_gathered(w->data, w->series, ix, w->queries, first, width, sum);
            for (int64_t s = 0; s < width; s++) {
                w->out[(first + s) * w->rows + r] = (0.0 + sum[s]) / (double)w->queries; /* numpy's reduce starts at 0 */
            }
        }
    }
}

PyObject *resampled_means(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *data_object, *indices_object;
    long long series, queries;
    int threads;
    if (!PyArg_ParseTuple(args, "OLLOi", &data_object, &series, &queries, &indices_object, &threads)) {
        return NULL;
    }
    Py_buffer data = {0}, indices = {0};
    PyObject *result = NULL;
    if (PyObject_GetBuffer(data_object, &data, PyBUF_SIMPLE) < 0 ||
        PyObject_GetBuffer(indices_object, &indices, PyBUF_SIMPLE) < 0) {
        goto done;
    }
    if (series < 1 || queries < 1 || data.len != (Py_ssize_t)(series * queries * 8) ||
        indices.len % (Py_ssize_t)(queries * 8)) {
        PyErr_SetString(PyExc_ValueError, "resampled_means: the values, series and draws do not agree");
        goto done;
    }
    int64_t rows = (int64_t)(indices.len / (Py_ssize_t)(queries * 8));
    const int64_t *ix = indices.buf;
    for (int64_t i = 0; i < rows * queries; i++) {
        if (ix[i] < 0 || ix[i] >= queries) {
            PyErr_SetString(PyExc_ValueError, "resampled_means: a draw is not a query's index");
            goto done;
        }
    }
    result = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(series * rows * 8));
    if (!result || rows == 0) {
        goto done;
    }
    threads = pool_threads(threads);
    threads = rows < threads ? (int)rows : threads;
    ResampleWork work = {data.buf, ix, series, queries, rows, (double *)PyByteArray_AS_STRING(result), threads};
    pool_run(threads, threads, resample_share, &work);
done:
    buffer_release(&data);
    buffer_release(&indices);
    return result;
}
