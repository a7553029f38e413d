/* Arrow string views (native.h gives the layout): read from Python objects in place, and written into
 * new columns with their long strings in a growing data buffer. */
#include "native.h"

#include <stdlib.h>

int strings_from(PyObject *views, PyObject *buffers, Py_buffer *view_buffer, Py_buffer **data, Strings *strings) {
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

void strings_release(Py_buffer *view_buffer, Py_buffer *data, Strings *strings) {
    buffer_release(view_buffer);
    for (Py_ssize_t i = 0; data && i < strings->buffers; i++) {
        PyBuffer_Release(&data[i]);
    }
    PyMem_Free(data);
    PyMem_Free((void *)strings->data);
    PyMem_Free(strings->data_sizes);
}

int write_view(DataBuffer *data, uint8_t *view, const uint8_t *s, size_t n) {
    /* A view holds its length and offset as int32: a line of a gigabyte or more can pass that (a chunk
     * grows to its last line's end), and a wrapped length or offset would point at the wrong bytes. */
    if (n > INLINE && (n > INT32_MAX || data->size > (size_t)INT32_MAX - n)) {
        return 0;
    }
    int32_t length = (int32_t)n;
    memset(view, 0, VIEW);
    memcpy(view, &length, 4);
    if (n <= INLINE) {
        memcpy(view + 4, s, n);
        return 1;
    }
    if (data->size + n > data->capacity) {
        size_t capacity = data->capacity ? data->capacity * 2 : (size_t)1 << 16;
        while (capacity < data->size + n) {
            capacity *= 2;
        }
        uint8_t *grown = realloc(data->bytes, capacity);
        if (!grown) {
            return 0;
        }
        data->bytes = grown, data->capacity = capacity;
    }
    int32_t offset = (int32_t)data->size;
    memcpy(data->bytes + data->size, s, n);
    data->size += n;
    memcpy(view + 4, s, 4);
    memcpy(view + 8, &data->index, 4);
    memcpy(view + 12, &offset, 4);
    return 1;
}
