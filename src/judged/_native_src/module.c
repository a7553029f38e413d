/* judged._native: the hot loops of evaluating a large run, in C, one job a file.
 *
 * reader.c   parse_trec: a TREC run or qrels text as string-view columns and a value column, on every core
 *            (lines.c reads a chunk's lines and values; mapping.c survives a mapped file that shrinks).
 * nested.c   flatten_nested: a {qid: {docid: value}} dict of dicts as the same columns.
 * join.c     scan_queries: repeated docids of each query and the judgment row of every run row.
 * ordering.c order_by_score and order_tied: each query's rows by score, and tied groups in rank order.
 * kernels.c  tukey_ranges (the randomised Tukey HSD's permutations), running_sums (per-query sums) and
 *            resampled_means (the bootstrap's means, numpy's pairwise sums without the gather).
 * format.c   trec_block: trec_eval's per-query lines.
 * views.c    Arrow string views, read and written; pool.c, the one thread pool; native.h, what they share.
 *
 * Every entry point takes only what the Python path would answer the same way and returns None for the
 * rest, so the extension is optional (judged/io/native.py loads it).
 */
#include "native.h"

locale_t c_locale;
PyObject *TextShrank;

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
    {"resampled_means", resampled_means, METH_VARARGS,
     "resampled_means(values, series, queries, draws, threads) -> per series and row of draws, the mean of the "
     "drawn queries' values as numpy sums them (float64 bytes, series-major)."},
    {"order_tied", order_tied, METH_VARARGS,
     "order_tied(views, buffers, members, opens, grades, best) -> the rows of each tied group in rank order."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "judged._native", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
    lines_init();
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!c_locale) {
        return PyErr_NoMemory();
    }
    PyObject *created = PyModule_Create(&module);
    TextShrank = created ? PyErr_NewException("judged._native.TextShrank", PyExc_OSError, NULL) : NULL;
    if (!TextShrank || PyModule_AddObjectRef(created, "TextShrank", TextShrank) < 0 ||
        PyModule_AddIntConstant(created, "MAX_LINE", (long)MAX_LINE) < 0) {
        Py_XDECREF(created);
        return NULL;
    }
    return created;
}
