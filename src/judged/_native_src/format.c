/* trec_block: trec_eval's per-query lines, laid out in C with the digits written here (the same bytes as
 * printf's "%6.4f" and "%lld"; render/trec_eval.py decides when Python writes them instead). */
#include "native.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
PyObject *trec_block(PyObject *self, PyObject *args) {
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
        buffer_release(&numbers[c]);
    }
    PyMem_Free(numbers);
    PyMem_Free(prefix);
    PyMem_Free(prefix_length);
    free(text.data);
    return result;
}
