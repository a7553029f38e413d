/* flatten_nested: a {qid: {docid: value}} dict of dicts (pytrec_eval's and ranx's shape) as the columns
 * parse_trec returns, in the dicts' order, with each qid's number of rows. Only exact str keys, dict values
 * and float or int scores (int grades) are taken; anything else returns None for the Python path. */
#include "native.h"

#include <stdlib.h>

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
static int nested_key(DataBuffer *data, uint8_t *view, PyObject *key) {
    Py_ssize_t n;
    const char *bytes = PyUnicode_CheckExact(key) ? PyUnicode_AsUTF8AndSize(key, &n) : NULL;
    if (!bytes) {
        PyErr_Clear();
        return 0;
    }
    return write_view(data, view, (const uint8_t *)bytes, (size_t)n);
}

PyObject *flatten_nested(PyObject *self, PyObject *args) {
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
    DataBuffer data = {0};
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
        if (!nested_key(&data, first, qid)) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        Py_ssize_t inner_at = 0, start = row;
        while (PyDict_Next(inner, &inner_at, &docid, &value)) {
            if (!nested_key(&data, docid_views + VIEW * row, docid) || !nested_value(value, integer, value_bytes + 8 * row)) {
                result = Py_NewRef(Py_None);
                goto done;
            }
            memcpy(qid_views + VIEW * row++, first, VIEW); /* the qid's bytes are written once, its view repeated */
        }
        length[query++] = row - start;
    }
    buffers = PyList_New(1);
    PyObject *bytes = buffers ? PyBytes_FromStringAndSize((const char *)data.bytes, (Py_ssize_t)data.size) : NULL;
    if (!bytes) {
        goto done;
    }
    PyList_SET_ITEM(buffers, 0, bytes);
    result = Py_BuildValue("(nOOOOO)", rows, qids, docids, values, buffers, lengths);
done:
    free(data.bytes);
    Py_XDECREF(qids);
    Py_XDECREF(docids);
    Py_XDECREF(values);
    Py_XDECREF(lengths);
    Py_XDECREF(buffers);
    return result;
}
