/* A chunk of a TREC text, line by line: its lines counted, then each data line split into fields (on ASCII
 * whitespace only, as trec_eval's isspace() in the C locale: docs/formats.md) and written as a row, its
 * value read exactly as Python reads it. Any line the strict parser might read otherwise (a control byte,
 * invalid UTF-8, too few or too many fields, an unusual number) fails the chunk, and the strict parser
 * decides. The value readers live here, beside the token scan, so that the compiler inlines them. */
#include "native.h"

#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

enum { TOKEN, SEPARATOR, NEWLINE, ODD, HIGH };

static uint8_t byte_class[256];

/* Control bytes other than whitespace are part of a token for trec_eval and the strict parser (which
 * refuses NUL); a line holding one is left to the strict parser, which keeps the token scan simple. */
void lines_init(void) {
    for (int c = 0; c < 256; c++) {
        byte_class[c] = c >= 0x80 ? HIGH : (c < 0x20 ? ODD : TOKEN);
    }
    byte_class[' '] = byte_class['\t'] = byte_class['\r'] = byte_class['\v'] = byte_class['\f'] = SEPARATOR;
    byte_class['\n'] = NEWLINE;
}

/* ---- values ------------------------------------------------------------------------------------ */

static const double exact_powers[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

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

/* ---- lines ------------------------------------------------------------------------------------- */

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

/* An upper bound on the chunk's data lines: its line count (comments and blank lines included, so
 * the rows parsed may be fewer). Line ends are counted eight bytes at a time: in word ^ "\n\n...", a
 * zero byte is one whose low seven bits carry nothing into its clear top bit; each such byte adds 1
 * to its lane of a sum that is folded before any lane can pass 255. */
void count_lines(void *arg) {
    Chunk *chunk = arg;
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

void parse_chunk(void *arg) {
    Chunk *chunk = arg;
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
            const uint8_t *stop = line_end(first, end);
            if ((size_t)(stop - p) > MAX_LINE) {
                chunk->failed = 1;
                return;
            }
            p = stop + 1;
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
        if ((size_t)(q - p) > MAX_LINE) { /* the strict parser words the refusal */
            chunk->failed = 1;
            return;
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
        if (!ok || !write_view(&chunk->data, chunk->qid_views + VIEW * row, start[0], length[0]) ||
            !write_view(&chunk->data, chunk->docid_views + VIEW * row, start[2], length[2])) {
            chunk->failed = 1;
            return;
        }
        row++;
        p = q + 1;
    }
    chunk->rows = row - chunk->first_row;
}
