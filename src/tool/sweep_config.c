#include "sweep_config.h"
#include "variant_set.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_random.h"
#include "textfile.h"

/* The largest number of shapes a file may expand to: a cartesian sweep that
 * explodes is almost always a mistake, and would run for days. */
#define MAX_SHAPES 100000

// ----------------------------------------------------------------------------
// where we are in the document, for messages

typedef struct walker {
    const char *file;
    convt_err *e;
    char path[512];
} walker;

static int fail_at(walker *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int fail_at(walker *w, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return convt_fail(w->e, "%s: %s: %s", w->file, w->path[0] ? w->path : "(top level)", what);
}

/* Appends ".key" or "[i]" to the path; pop() restores the saved length. */
static size_t push_key(walker *w, const char *key)
{
    size_t len = strlen(w->path);
    snprintf(w->path + len, sizeof w->path - len, len ? ".%s" : "%s", key);
    return len;
}

static size_t push_index(walker *w, int i)
{
    size_t len = strlen(w->path);
    snprintf(w->path + len, sizeof w->path - len, "[%d]", i);
    return len;
}

static void pop(walker *w, size_t len) { w->path[len] = 0; }

/* "a string \"abc\"", "the number 2.5", "an object", ... for "got ..." */
static void describe(const cJSON *v, char *buf, size_t len)
{
    if (!v)
        snprintf(buf, len, "nothing");
    else if (cJSON_IsString(v))
        snprintf(buf, len, "the string \"%.40s\"", v->valuestring);
    else if (cJSON_IsNumber(v))
        snprintf(buf, len, "%.17g", v->valuedouble);
    else if (cJSON_IsBool(v))
        snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsNull(v))
        snprintf(buf, len, "null");
    else if (cJSON_IsArray(v))
        snprintf(buf, len, "an array");
    else
        snprintf(buf, len, "an object");
}

static int expected(walker *w, const cJSON *v, const char *what)
{
    char got[96];
    describe(v, got, sizeof got);
    return fail_at(w, "expected %s, got %s", what, got);
}

/* Every key of obj must be one of allowed[] (NULL-terminated), once. */
static int check_keys(walker *w, const cJSON *obj, const char *const *allowed)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        bool known = false;
        for (const char *const *a = allowed; *a; a++)
            known |= !strcmp(*a, c->string);
        if (!known) {
            char list[512] = "";
            for (const char *const *a = allowed; *a; a++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", *a);
            }
            return fail_at(w, "unknown key \"%s\" (allowed here: %s)", c->string, list);
        }
        for (const cJSON *d = obj->child; d != c; d = d->next)
            if (!strcmp(d->string, c->string))
                return fail_at(w, "key \"%s\" appears twice", c->string);
    }
    return 0;
}

static int as_int(walker *w, const cJSON *v, int64_t lo, int64_t hi, int64_t *out)
{
    char what[96];
    if (hi == INT64_MAX)
        snprintf(what, sizeof what, "an integer >= %lld", (long long)lo);
    else
        snprintf(what, sizeof what, "an integer in [%lld, %lld]", (long long)lo, (long long)hi);
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble < (double)lo || v->valuedouble > (double)hi ||
        fabs(v->valuedouble) > 9007199254740992.0)
        return expected(w, v, what);
    *out = (int64_t)v->valuedouble;
    return 0;
}

static int get_int(walker *w, const cJSON *obj, const char *key, int64_t lo, int64_t hi,
                   int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return 0;
    size_t s = push_key(w, key);
    int rc = as_int(w, v, lo, hi, out);
    pop(w, s);
    return rc;
}

static int get_int32(walker *w, const cJSON *obj, const char *key, int lo, int hi, int *out)
{
    int64_t v = *out;
    if (get_int(w, obj, key, lo, hi, &v))
        return -1;
    *out = (int)v;
    return 0;
}

static int get_double(walker *w, const cJSON *obj, const char *key, double lo, double hi,
                      bool lo_open, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return 0;
    size_t s = push_key(w, key);
    int rc = 0;
    if (!cJSON_IsNumber(v) || !(lo_open ? v->valuedouble > lo : v->valuedouble >= lo) ||
        v->valuedouble > hi) {
        char what[96];
        snprintf(what, sizeof what, "a number %s %g and <= %g", lo_open ? ">" : ">=", lo, hi);
        rc = expected(w, v, what);
    } else {
        *out = v->valuedouble;
    }
    pop(w, s);
    return rc;
}

static int get_string(walker *w, const cJSON *obj, const char *key, const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return 0;
    size_t s = push_key(w, key);
    int rc = 0;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        rc = expected(w, v, "a non-empty string");
    else
        *out = v->valuestring;
    pop(w, s);
    return rc;
}

static int get_object(walker *w, const cJSON *obj, const char *key, const cJSON **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!v)
        return 0;
    if (!cJSON_IsObject(v)) {
        size_t s = push_key(w, key);
        int rc = expected(w, v, "an object");
        pop(w, s);
        return rc;
    }
    *out = v;
    return 0;
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

// ----------------------------------------------------------------------------
// text: UTF-8, names, seeds

/* The length of the UTF-8 sequence at s (1 to 4) with its code point in *cp,
 * or 0 when s does not start a valid one (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF). */
static int utf8_next(const unsigned char *s, uint32_t *cp)
{
    int n;
    uint32_t min;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xE0) == 0xC0)
        n = 2, *cp = s[0] & 0x1F, min = 0x80;
    else if ((s[0] & 0xF0) == 0xE0)
        n = 3, *cp = s[0] & 0x0F, min = 0x800;
    else if ((s[0] & 0xF8) == 0xF0)
        n = 4, *cp = s[0] & 0x07, min = 0x10000;
    else
        return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) /* a NUL ends the loop here too */
            return 0;
        *cp = *cp << 6 | (s[i] & 0x3F);
    }
    if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF))
        return 0;
    return n;
}

/* The offset of the first byte of s that is not UTF-8, or -1. */
static long utf8_invalid_at(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t cp;
    for (long at = 0; u[at];) {
        int n = utf8_next(u + at, &cp);
        if (!n)
            return at;
        at += n;
    }
    return -1;
}

/* A shape's name goes into the results (JSON, which is UTF-8), the progress
 * lines and the names of --dump's directories: UTF-8 text without control
 * characters (C0, DEL, C1), which would garble a terminal or a file name. */
static int check_name(walker *w, const char *name)
{
    const unsigned char *u = (const unsigned char *)name;
    for (size_t at = 0; u[at];) {
        uint32_t cp;
        int n = utf8_next(u + at, &cp);
        if (!n)
            return fail_at(w, "expected a name in UTF-8, got the byte 0x%02x at byte %zu, which "
                              "is not UTF-8 text",
                           u[at], at);
        if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
            return fail_at(w, "expected a name without control characters, got U+%04X at byte "
                              "%zu",
                           (unsigned)cp, at);
        at += (size_t)n;
    }
    return 0;
}

/* snprintf's "%s" into dst[size], except that a name too long is cut before
 * a whole character, never inside one: a cut name stays UTF-8. */
static void copy_name(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size) {
        n = size - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) /* src[n] continues a character */
            n--;
    }
    memcpy(dst, src, n);
    dst[n] = 0;
}

int convt_parse_seed(const char *text, uint64_t *seed)
{
    if (!text[0] || (text[0] == '0' && text[1]))
        return -1;
    uint64_t v = 0;
    for (const char *c = text; *c; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        unsigned d = (unsigned)(*c - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *seed = v;
    return 0;
}

/* A seed must reach the results exactly as given: a JSON number is a double,
 * exact for integers up to 2^53 - 1 (above, 9007199254740993 would silently
 * read as ...992), so a larger seed is a decimal string. */
static int get_seed(walker *w, const cJSON *obj, const char *key, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return 0;
    size_t s = push_key(w, key);
    int rc = 0;
    if (cJSON_IsString(v)) {
        if (convt_parse_seed(v->valuestring, out))
            rc = expected(w, v, "a seed in [0, 18446744073709551615] written in decimal digits "
                                "(no sign, no leading zeros)");
    } else if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
               v->valuedouble < 0 || v->valuedouble > (double)CONVT_SEED_EXACT_MAX) {
        rc = expected(w, v, "an integer in [0, 9007199254740991] (a larger seed as a decimal "
                            "string: \"12345678901234567890\")");
    } else {
        *out = (uint64_t)v->valuedouble;
    }
    pop(w, s);
    return rc;
}

// ----------------------------------------------------------------------------
// shapes

static const char *const shape_keys[] = {"name", "dims", "n",  "cin",     "cout", "groups", "bias",
                                         "in",   "k",    "stride", "pad", "out_pad", "dil", NULL};

/* A per-dimension parameter: one integer for every dimension, or an array of
 * exactly `dims` integers. */
static int get_per_dim(walker *w, const cJSON *obj, const char *key, int dims, int64_t lo,
                       int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return 0;
    size_t s = push_key(w, key);
    int rc = 0;
    if (cJSON_IsArray(v)) {
        int n = cJSON_GetArraySize(v);
        if (n != dims) {
            rc = fail_at(w, "expected %d value%s (one per spatial dimension), got %d", dims,
                         dims == 1 ? "" : "s", n);
        } else {
            int i = 0;
            for (const cJSON *c = v->child; c && !rc; c = c->next, i++) {
                size_t s2 = push_index(w, i);
                rc = as_int(w, c, lo, INT64_MAX, &out[i]);
                pop(w, s2);
            }
        }
    } else if (cJSON_IsNumber(v)) {
        int64_t one = 0;
        rc = as_int(w, v, lo, INT64_MAX, &one);
        for (int i = 0; i < dims && !rc; i++)
            out[i] = one;
    } else {
        char what[96];
        snprintf(what, sizeof what, "an integer or an array of %d integers", dims);
        rc = expected(w, v, what);
    }
    pop(w, s);
    return rc;
}

static int require(walker *w, const cJSON *obj, const char *key)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        return 0;
    return fail_at(w, "missing required key \"%s\"", key);
}

static int parse_shape(walker *w, const cJSON *obj, const char *default_name, convt_problem *p)
{
    if (!cJSON_IsObject(obj))
        return expected(w, obj, "a shape object");
    if (check_keys(w, obj, shape_keys) || require(w, obj, "n") || require(w, obj, "cin") ||
        require(w, obj, "cout") || require(w, obj, "in") || require(w, obj, "k"))
        return -1;
    /* dims: given, or the length of "in". */
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(obj, "in");
    int64_t dims = cJSON_IsArray(in) ? cJSON_GetArraySize(in) : 0;
    const cJSON *dv = cJSON_GetObjectItemCaseSensitive(obj, "dims");
    if (dv) {
        int64_t given = 0;
        size_t s = push_key(w, "dims");
        int rc = as_int(w, dv, 1, 3, &given);
        pop(w, s);
        if (rc)
            return -1;
        if (dims && dims != given) {
            size_t s2 = push_key(w, "in");
            rc = fail_at(w, "has %lld values but dims is %lld", (long long)dims,
                         (long long)given);
            pop(w, s2);
            return rc;
        }
        dims = given;
    } else if (!dims || dims > 3) {
        size_t s = push_key(w, "in");
        int rc = expected(w, in, "an array of 1 to 3 sizes (or give \"dims\")");
        pop(w, s);
        return rc;
    }
    *p = convt_problem_default((int)dims);
    const char *name = default_name;
    if (get_string(w, obj, "name", &name))
        return -1;
    if (name != default_name) {
        size_t s = push_key(w, "name");
        int rc = check_name(w, name);
        pop(w, s);
        if (rc)
            return -1;
    }
    copy_name(p->name, sizeof p->name, name);
    const cJSON *bias = cJSON_GetObjectItemCaseSensitive(obj, "bias");
    if (bias) {
        size_t s = push_key(w, "bias");
        int rc = cJSON_IsBool(bias) ? 0 : expected(w, bias, "true or false");
        pop(w, s);
        if (rc)
            return -1;
        p->bias = cJSON_IsTrue(bias);
    }
    if (get_int(w, obj, "n", 1, INT64_MAX, &p->n) || get_int(w, obj, "cin", 1, INT64_MAX, &p->cin) ||
        get_int(w, obj, "cout", 1, INT64_MAX, &p->cout) ||
        get_int(w, obj, "groups", 1, INT64_MAX, &p->groups) ||
        get_per_dim(w, obj, "in", p->dims, 1, p->in) ||
        get_per_dim(w, obj, "k", p->dims, 1, p->k) ||
        get_per_dim(w, obj, "stride", p->dims, 1, p->stride) ||
        get_per_dim(w, obj, "pad", p->dims, 0, p->pad) ||
        get_per_dim(w, obj, "out_pad", p->dims, 0, p->out_pad) ||
        get_per_dim(w, obj, "dil", p->dims, 1, p->dil))
        return -1;
    char why[256];
    if (convt_problem_check(p, why, sizeof why))
        return fail_at(w, "%s", why);
    return 0;
}

static int add_shape(walker *w, convt_config *cfg, const convt_problem *p)
{
    if (cfg->n_shapes >= MAX_SHAPES)
        return fail_at(w, "the config expands to more than %d shapes", MAX_SHAPES);
    if ((cfg->n_shapes & (cfg->n_shapes - 1)) == 0) { /* grow at powers of two */
        int cap = cfg->n_shapes ? 2 * cfg->n_shapes : 16;
        convt_problem *grown = realloc(cfg->shapes, (size_t)cap * sizeof *grown);
        if (!grown)
            return fail_at(w, "out of memory");
        cfg->shapes = grown;
    }
    cfg->shapes[cfg->n_shapes++] = *p;
    return 0;
}

static int parse_shapes(walker *w, const cJSON *arr, convt_config *cfg)
{
    size_t s = push_key(w, "shapes");
    int rc = 0;
    if (!cJSON_IsArray(arr)) {
        rc = expected(w, arr, "an array of shape objects");
    } else {
        int i = 0;
        for (const cJSON *c = arr->child; c && !rc; c = c->next, i++) {
            size_t s2 = push_index(w, i);
            char name[32];
            snprintf(name, sizeof name, "shape%d", i);
            convt_problem p;
            rc = parse_shape(w, c, name, &p) || add_shape(w, cfg, &p);
            pop(w, s2);
        }
    }
    pop(w, s);
    return rc;
}

/* One sweep: the cartesian product of its axes applied to its base shape.
 * Each combination is parsed as a shape of its own, so its errors read
 * "sweeps[0] (n=4, stride=2): out_pad[0] = 1 must be ...". */
static int parse_sweep(walker *w, const cJSON *sw, convt_config *cfg)
{
    static const char *const keys[] = {"name", "base", "axes", NULL};
    if (!cJSON_IsObject(sw))
        return expected(w, sw, "a sweep object with \"base\" and \"axes\"");
    if (check_keys(w, sw, keys) || require(w, sw, "base") || require(w, sw, "axes"))
        return -1;
    const char *name = "sweep";
    const cJSON *base, *axes;
    if (get_string(w, sw, "name", &name) || get_object(w, sw, "base", &base) ||
        get_object(w, sw, "axes", &axes))
        return -1;
    size_t sn = push_key(w, "name");
    int bad_name = check_name(w, name);
    pop(w, sn);
    if (bad_name)
        return -1;
    int n_axes = 0;
    const cJSON *axis[16];
    int len[16], at[16];
    size_t s = push_key(w, "axes");
    for (const cJSON *a = axes->child; a; a = a->next) {
        size_t s2 = push_key(w, a->string);
        bool is_param = false;
        for (const char *const *k = shape_keys + 2; *k; k++) /* not name, dims */
            is_param |= !strcmp(*k, a->string);
        int rc = 0;
        if (!is_param)
            rc = fail_at(w, "not a shape parameter an axis can vary (use n, cin, cout, "
                            "groups, bias, in, k, stride, pad, out_pad or dil)");
        else if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
            rc = expected(w, a, "a non-empty array of values");
        else if (n_axes == 16)
            rc = fail_at(w, "more than 16 axes");
        pop(w, s2);
        if (rc) {
            pop(w, s);
            return -1;
        }
        axis[n_axes] = a;
        len[n_axes] = cJSON_GetArraySize(a);
        at[n_axes++] = 0;
    }
    pop(w, s);
    if (check_keys(w, axes, shape_keys))
        return -1;
    for (;;) {
        cJSON *shape = cJSON_Duplicate(base, true);
        /* longer than a shape's name: parse_shape cuts it (copy_name) */
        char label[256] = "", sname[320];
        for (int i = 0; i < n_axes; i++) {
            cJSON *val = cJSON_Duplicate(cJSON_GetArrayItem(axis[i], at[i]), true);
            cJSON_DeleteItemFromObjectCaseSensitive(shape, axis[i]->string);
            cJSON_AddItemToObject(shape, axis[i]->string, val);
            char *txt = cJSON_PrintUnformatted(val);
            size_t l = strlen(label);
            snprintf(label + l, sizeof label - l, "%s%s=%s", i ? ", " : "", axis[i]->string,
                     txt ? txt : "?");
            free(txt);
        }
        snprintf(sname, sizeof sname, "%s[%s]", name, label);
        size_t l = strlen(w->path);
        snprintf(w->path + l, sizeof w->path - l, " (%s)", label);
        cJSON_DeleteItemFromObjectCaseSensitive(shape, "name");
        convt_problem p;
        int rc = parse_shape(w, shape, sname, &p) || add_shape(w, cfg, &p);
        pop(w, l);
        cJSON_Delete(shape);
        if (rc)
            return -1;
        int i = n_axes - 1; /* odometer: advance the last axis first */
        while (i >= 0 && ++at[i] == len[i])
            at[i--] = 0;
        if (i < 0)
            return 0;
    }
}

static int parse_random(walker *w, const cJSON *obj, convt_config *cfg)
{
    static const char *const keys[] = {"count", "seed", "dims", "max_output_elems",
                                       "max_channels", NULL};
    size_t s = push_key(w, "random");
    int rc = -1;
    int64_t count = 0, max_out = 1 << 20, max_ch = 16;
    uint64_t seed = 1;
    convt_random_spec spec = {0};
    if (!cJSON_IsObject(obj)) {
        rc = expected(w, obj, "an object");
        goto out;
    }
    if (check_keys(w, obj, keys) || require(w, obj, "count") ||
        get_int(w, obj, "count", 1, MAX_SHAPES, &count) ||
        get_seed(w, obj, "seed", &seed) ||
        get_int(w, obj, "max_output_elems", 1, INT64_MAX, &max_out) ||
        get_int(w, obj, "max_channels", 1, 4096, &max_ch))
        goto out;
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(obj, "dims");
    spec.dims_mask = 7;
    if (dims) {
        size_t s2 = push_key(w, "dims");
        if (!cJSON_IsArray(dims) || !cJSON_GetArraySize(dims)) {
            expected(w, dims, "a non-empty array of 1, 2 or 3");
            pop(w, s2);
            goto out;
        }
        spec.dims_mask = 0;
        int i = 0;
        for (const cJSON *c = dims->child; c; c = c->next, i++) {
            int64_t d = 1;
            size_t s3 = push_index(w, i);
            int bad = as_int(w, c, 1, 3, &d);
            pop(w, s3);
            if (bad) {
                pop(w, s2);
                goto out;
            }
            spec.dims_mask |= 1u << (d - 1);
        }
        pop(w, s2);
    }
    spec.max_output_elems = max_out;
    spec.max_channels = max_ch;
    for (int64_t i = 0; i < count; i++) {
        convt_problem p = convt_random_problem(seed, (uint64_t)i, &spec);
        if (add_shape(w, cfg, &p))
            goto out;
    }
    rc = 0;
out:
    pop(w, s);
    return rc;
}

// ----------------------------------------------------------------------------
// variants and launch knobs

/* Every variant name of the project, built here or not, for "no variant
 * named ..." messages. */
static void variant_list(char *buf, size_t len)
{
    buf[0] = 0;
    for (const convt_variant_name *n = convt_all_variant_names; n->name; n++) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", l ? ", " : "", n->name);
    }
    for (const convt_variant *const *v = convt_tool_variants(); *v; v++)
        if (!convt_variant_name_find((*v)->name)) { /* a plugin's */
            size_t l = strlen(buf);
            snprintf(buf + l, len - l, "%s%s", l ? ", " : "", (*v)->name);
        }
}

/* Keeps a sentence for the person running the config, as fail_at words an
 * error (file, JSON path, what); main prints them. Out of memory, the note
 * is dropped: it informs, it decides nothing. */
static void add_note(walker *w, convt_config *cfg, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void add_note(walker *w, convt_config *cfg, const char *fmt, ...)
{
    char what[768], note[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(note, sizeof note, "%s: %s: %s", w->file, w->path[0] ? w->path : "(top level)",
             what);
    char **grown = realloc(cfg->notes, (size_t)(cfg->n_notes + 1) * sizeof *grown);
    if (!grown)
        return;
    cfg->notes = grown;
    if ((cfg->notes[cfg->n_notes] = dup_string(note)))
        cfg->n_notes++;
}

/* "a, b (need the CUDA Toolkit), c (needs the CUDA Toolkit and cuDNN)": the
 * variants of the project that `pattern` matches and this binary lacks. */
static void unbuilt_matches(const char *pattern, char *buf, size_t len)
{
    buf[0] = 0;
    int run = 0; /* names listed since the last "(needs ...)" */
    for (const convt_variant_name *n = convt_all_variant_names; n->name; n++) {
        if (convt_tool_variant_find(n->name) || fnmatch(pattern, n->name, 0))
            continue;
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", l ? ", " : "", n->name);
        run++;
        const convt_variant_name *next = n + 1;
        while (next->name && (convt_tool_variant_find(next->name) || fnmatch(pattern, next->name, 0)))
            next++;
        if (!next->name || strcmp(next->needs ? next->needs : "", n->needs ? n->needs : "")) {
            l = strlen(buf);
            snprintf(buf + l, len - l, " (%s %s)", run == 1 ? "needs" : "need",
                     n->needs ? n->needs : "another build");
            run = 0;
        }
    }
}

/* A pattern must match some variant of the project. One that matches only
 * variants this binary was built without (the CUDA ones on a machine
 * without the CUDA Toolkit) is noted and skipped: the same config serves
 * every build. */
static int parse_variants(walker *w, const cJSON *arr, convt_config *cfg)
{
    size_t s = push_key(w, "variants");
    int rc = 0;
    if (!cJSON_IsArray(arr) || !cJSON_GetArraySize(arr)) {
        rc = expected(w, arr, "a non-empty array of variant names or globs");
        goto out;
    }
    cfg->patterns = calloc((size_t)cJSON_GetArraySize(arr), sizeof *cfg->patterns);
    if (!cfg->patterns) {
        rc = fail_at(w, "out of memory");
        goto out;
    }
    int i = 0;
    for (const cJSON *c = arr->child; c && !rc; c = c->next, i++) {
        size_t s2 = push_index(w, i);
        if (!cJSON_IsString(c) || !c->valuestring[0]) {
            rc = expected(w, c, "a variant name or glob");
        } else {
            bool built = false, known = false;
            for (const convt_variant *const *v = convt_tool_variants(); *v; v++)
                built |= fnmatch(c->valuestring, (*v)->name, 0) == 0;
            known = built; /* a plugin's variant is known by being loaded */
            for (const convt_variant_name *n = convt_all_variant_names; n->name; n++)
                known |= fnmatch(c->valuestring, n->name, 0) == 0;
            if (!known) {
                char list[512];
                variant_list(list, sizeof list);
                rc = fail_at(w, "\"%s\" matches no variant (the variants: %s)", c->valuestring,
                             list);
            } else {
                const convt_variant_name *named = convt_variant_name_find(c->valuestring);
                if (!built && named) {
                    add_note(w, cfg, "variant \"%s\" is not built into this binary (it needs "
                                     "%s); skipped",
                             named->name, named->needs ? named->needs : "another build");
                } else if (!built) {
                    char list[512];
                    unbuilt_matches(c->valuestring, list, sizeof list);
                    add_note(w, cfg, "\"%s\" matches only variants this binary was built "
                                     "without: %s; skipped",
                             c->valuestring, list);
                }
                cfg->patterns[cfg->n_patterns++] = dup_string(c->valuestring);
            }
        }
        pop(w, s2);
    }
out:
    pop(w, s);
    return rc;
}

static int parse_launch(walker *w, const cJSON *obj, convt_config *cfg)
{
    size_t s = push_key(w, "launch");
    int rc = 0;
    if (!cJSON_IsObject(obj)) {
        rc = expected(w, obj, "an object: variant name -> { knob: [values] }");
        goto out;
    }
    int total = 0;
    for (const cJSON *v = obj->child; v; v = v->next)
        total += cJSON_IsObject(v) ? cJSON_GetArraySize(v) : 0;
    cfg->overrides = calloc((size_t)(total ? total : 1), sizeof *cfg->overrides);
    if (!cfg->overrides) {
        rc = fail_at(w, "out of memory");
        goto out;
    }
    for (const cJSON *v = obj->child; v && !rc; v = v->next) {
        size_t s2 = push_key(w, v->string);
        const convt_variant *var = convt_tool_variant_find(v->string);
        const convt_variant_name *known = convt_variant_name_find(v->string);
        if (!known && !var) {
            char list[512];
            variant_list(list, sizeof list);
            rc = fail_at(w, "no variant named \"%s\" (the variants: %s)", v->string, list);
        } else if (!cJSON_IsObject(v)) {
            rc = expected(w, v, "an object: knob name -> [values]");
        } else if (!var) {
            /* Its knobs are not known here: they are neither checked nor used. */
            add_note(w, cfg, "variant \"%s\" is not built into this binary (it needs %s); its "
                             "launch knobs are not used",
                     v->string, known->needs ? known->needs : "another build");
            pop(w, s2);
            continue;
        }
        for (const cJSON *k = rc ? NULL : v->child; k && !rc; k = k->next) {
            size_t s3 = push_key(w, k->string);
            int ki = convt_knob_index(var, k->string);
            if (ki < 0) {
                char list[256] = "";
                for (int i = 0; i < var->n_knobs; i++) {
                    size_t l = strlen(list);
                    snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "",
                             var->knobs[i].name);
                }
                rc = fail_at(w, "variant \"%s\" has no knob \"%s\" (its knobs: %s)", var->name,
                             k->string, var->n_knobs ? list : "none");
            } else {
                convt_knob_override *o = &cfg->overrides[cfg->n_overrides++];
                o->variant = var;
                o->knob = ki;
                if (cJSON_IsNumber(k)) {
                    o->n = 1;
                    rc = as_int(w, k, 0, INT32_MAX, &o->values[0]);
                } else if (!cJSON_IsArray(k) || !cJSON_GetArraySize(k) ||
                           cJSON_GetArraySize(k) > CONVT_MAX_KNOB_VALUES) {
                    char what[96];
                    snprintf(what, sizeof what, "an integer or an array of 1 to %d integers",
                             CONVT_MAX_KNOB_VALUES);
                    rc = expected(w, k, what);
                } else {
                    int i = 0;
                    for (const cJSON *c = k->child; c && !rc; c = c->next, i++) {
                        size_t s4 = push_index(w, i);
                        rc = as_int(w, c, 0, INT32_MAX, &o->values[o->n++]);
                        pop(w, s4);
                    }
                }
            }
            pop(w, s3);
        }
        pop(w, s2);
    }
out:
    pop(w, s);
    return rc;
}

// ----------------------------------------------------------------------------
// measurement and validation

static int parse_measure(walker *w, const cJSON *obj, convt_measure_settings *m)
{
    static const char *const keys[] = {"warmup",     "min_samples", "max_samples", "min_time_s",
                                       "max_time_s", "target_noise", "cache",      "hang_timeout_s",
                                       "batch_below_us", "rounds", "prune", NULL};
    size_t s = push_key(w, "measure");
    int rc = -1;
    const char *cache = NULL;
    if (!cJSON_IsObject(obj)) {
        expected(w, obj, "an object");
        goto out;
    }
    if (check_keys(w, obj, keys) || get_int32(w, obj, "warmup", 0, 10000, &m->warmup) ||
        get_int32(w, obj, "min_samples", 1, 100000, &m->min_samples) ||
        get_int32(w, obj, "max_samples", 1, 1000000, &m->max_samples) ||
        get_double(w, obj, "min_time_s", 0, 3600, false, &m->min_time_s) ||
        get_double(w, obj, "max_time_s", 0, 3600, true, &m->max_time_s) ||
        get_double(w, obj, "target_noise", 0, 1, true, &m->target_noise) ||
        get_double(w, obj, "hang_timeout_s", 0, 86400, true, &m->hang_timeout_s) ||
        get_double(w, obj, "batch_below_us", 0, 1e6, false, &m->batch_below_us) ||
        get_int32(w, obj, "rounds", 1, CONVT_MAX_ROUNDS, &m->rounds) ||
        get_double(w, obj, "prune", 0, 1e6, false, &m->prune) ||
        get_string(w, obj, "cache", &cache))
        goto out;
    if (m->prune != 0 && m->prune < 1) {
        push_key(w, "prune");
        fail_at(w, "expected 0 (off) or a factor >= 1, got %g: below 1 every launch, the "
                   "fastest too, would stop after its first round", m->prune);
        goto out;
    }
    if (m->prune > 0 && m->rounds < 2) {
        push_key(w, "prune");
        fail_at(w, "prunes after the first round, and rounds = %d leaves none after it; "
                   "set rounds >= 2 or drop prune", m->rounds);
        goto out;
    }
    if (m->max_samples < m->min_samples) {
        push_key(w, "max_samples");
        fail_at(w, "%d is below min_samples = %d", m->max_samples, m->min_samples);
        goto out;
    }
    if (cache) {
        if (strcmp(cache, "cold") && strcmp(cache, "warm")) {
            push_key(w, "cache");
            fail_at(w, "expected \"cold\" or \"warm\", got \"%s\"", cache);
            goto out;
        }
        m->cold_cache = !strcmp(cache, "cold");
    }
    rc = 0;
out:
    pop(w, s);
    return rc;
}

static int parse_tolerance(walker *w, const cJSON *obj, convt_tolerance *tol)
{
    static const char *const tiers[] = {"fp32", "tf32", NULL};
    static const char *const keys[] = {"rtol", "atol", "normwise", NULL};
    size_t s = push_key(w, "tolerance");
    int rc = -1;
    if (!cJSON_IsObject(obj)) {
        expected(w, obj, "an object with \"fp32\" and/or \"tf32\"");
        goto out;
    }
    if (check_keys(w, obj, tiers))
        goto out;
    for (const cJSON *t = obj->child; t; t = t->next) {
        size_t s2 = push_key(w, t->string);
        convt_tolerance *tt = &tol[convt_tier_from_name(t->string)];
        int bad = !cJSON_IsObject(t) ? expected(w, t, "an object") :
                  check_keys(w, t, keys) || get_double(w, t, "rtol", 0, 1, false, &tt->rtol) ||
                  get_double(w, t, "atol", 0, 1e30, false, &tt->atol) ||
                  get_double(w, t, "normwise", 0, 1, false, &tt->normwise);
        pop(w, s2);
        if (bad)
            goto out;
    }
    rc = 0;
out:
    pop(w, s);
    return rc;
}

static int parse_validation(walker *w, const cJSON *obj, convt_validation_settings *v)
{
    static const char *const keys[] = {"trials", "cpu_reference_max_gflop", "spot_checks",
                                       "tolerance", NULL};
    size_t s = push_key(w, "validation");
    int rc = -1;
    const cJSON *tol;
    if (!cJSON_IsObject(obj)) {
        expected(w, obj, "an object");
        goto out;
    }
    if (check_keys(w, obj, keys) || get_int32(w, obj, "trials", 1, 100, &v->trials) ||
        get_double(w, obj, "cpu_reference_max_gflop", 0, 1e6, false,
                   &v->cpu_reference_max_gflop) ||
        get_int32(w, obj, "spot_checks", 0, 100000, &v->spot_checks) ||
        get_object(w, obj, "tolerance", &tol) || (tol && parse_tolerance(w, tol, v->tol)))
        goto out;
    rc = 0;
out:
    pop(w, s);
    return rc;
}

// ----------------------------------------------------------------------------
// the file

void convt_config_init(convt_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->seed = 1;
    cfg->measure = (convt_measure_settings){.warmup = 3,
                                            .min_samples = 5,
                                            .max_samples = 200,
                                            .min_time_s = 0.0,
                                            .max_time_s = 1.0,
                                            .target_noise = 0.005,
                                            .cold_cache = true,
                                            .hang_timeout_s = 120,
                                            .batch_below_us = 20,
                                            .rounds = 4};
    cfg->validation.trials = 1;
    cfg->validation.cpu_reference_max_gflop = 0.5;
    cfg->validation.spot_checks = 64;
    for (int t = 0; t < CONVT_TIER_COUNT; t++)
        cfg->validation.tol[t] = convt_tolerance_default((convt_tier)t);
    cfg->workspace_limit = (size_t)4 << 30;
}

static void line_col(const char *text, const char *at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *c = text; c < at && *c; c++) {
        if (*c == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

// ----------------------------------------------------------------------------
// what cJSON lets through: the text is held to RFC 8259 before it is parsed,
// and the tree to what a config needs after

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* NULL when t[0..n) is a number as RFC 8259 writes it
 * (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), else what is wrong. */
static const char *number_syntax(const char *t, size_t n)
{
    size_t i = 0;
    if (i < n && t[i] == '-')
        i++;
    if (i == n || !is_digit(t[i]))
        return "a digit must follow the minus sign";
    if (t[i] == '0') {
        if (++i < n && is_digit(t[i]))
            return "leading zeros are not allowed";
    } else {
        while (i < n && is_digit(t[i]))
            i++;
    }
    if (i < n && t[i] == '.') {
        if (++i == n || !is_digit(t[i]))
            return "a digit must follow the decimal point";
        while (i < n && is_digit(t[i]))
            i++;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        if (++i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        if (i == n || !is_digit(t[i]))
            return "the exponent has no digits";
        while (i < n && is_digit(t[i]))
            i++;
    }
    return i == n ? NULL : "it does not end where a number ends";
}

/* Where text first holds what cJSON accepts and RFC 8259 does not (a number
 * such as 007 or 1., a raw control character inside a string), what cJSON
 * would take wrongly (\u0000, which cuts its string short), or nesting past
 * cJSON's limit (which it reports as a bare syntax error); the reason in why.
 * NULL when there is none: other syntax errors are cJSON's to report. */
static const char *strict_json_problem(const char *text, char *why, size_t len)
{
    int depth = 0;
    for (const char *c = text; *c; c++) {
        if (*c == '"') {
            for (c++; *c != '"'; c++) {
                if (!*c)
                    return NULL; /* unterminated: cJSON says where */
                if ((unsigned char)*c < 0x20) {
                    snprintf(why, len, "a control character (U+%04X) inside a string; write it "
                                       "escaped (\\n, \\t, \\u%04X)",
                             (unsigned char)*c, (unsigned char)*c);
                    return c;
                }
                if (*c == '\\') {
                    if (!strncmp(c + 1, "u0000", 5)) {
                        snprintf(why, len, "\\u0000 inside a string: a NUL character cannot be "
                                           "part of a config string");
                        return c;
                    }
                    if (c[1])
                        c++; /* the escaped character, which may be '"' */
                }
            }
        } else if (*c == '[' || *c == '{') {
            if (++depth > CJSON_NESTING_LIMIT) {
                snprintf(why, len, "arrays and objects nested more than %d deep (the parser's "
                                   "limit)",
                         CJSON_NESTING_LIMIT);
                return c;
            }
        } else if (*c == ']' || *c == '}') {
            depth--;
        } else if (*c == '-' || is_digit(*c)) {
            size_t n = strspn(c, "0123456789+-.eE");
            const char *bad = number_syntax(c, n);
            if (bad) {
                snprintf(why, len, "the number \"%.*s%s\": %s", (int)(n < 24 ? n : 24), c,
                         n > 24 ? "..." : "", bad);
                return c;
            }
            c += n - 1;
        }
    }
    return NULL;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* cJSON keeps both values of a repeated key, and every lookup finds the
 * first: the second would be dropped without a word. Sorted, so that an
 * object of many keys costs n log n. */
static int check_duplicate_keys(walker *w, const cJSON *obj)
{
    int n = cJSON_GetArraySize(obj);
    if (n < 2)
        return 0;
    const cJSON **keys = malloc((size_t)n * sizeof *keys);
    if (!keys)
        return fail_at(w, "out of memory checking the keys");
    int i = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        keys[i++] = c;
    qsort(keys, (size_t)n, sizeof *keys, cmp_key);
    const char *dup = NULL;
    for (i = 1; i < n && !dup; i++)
        if (!strcmp(keys[i - 1]->string, keys[i]->string))
            dup = keys[i]->string;
    int rc = dup ? fail_at(w, "key \"%s\" appears twice", dup) : 0;
    free(keys);
    return rc;
}

/* Every object of the file, anywhere, has each key once, and every key and
 * string is UTF-8 (the results record the config: a byte that is not UTF-8
 * would make them unreadable to every JSON reader). */
static int check_tree(walker *w, const cJSON *v)
{
    if (cJSON_IsString(v)) {
        long at = utf8_invalid_at(v->valuestring);
        if (at >= 0)
            return fail_at(w, "expected UTF-8 text, got the byte 0x%02x at byte %ld of the "
                              "string, which is not UTF-8",
                           (unsigned char)v->valuestring[at], at);
        return 0;
    }
    if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
        return 0;
    if (cJSON_IsObject(v)) {
        for (const cJSON *c = v->child; c; c = c->next) {
            long at = utf8_invalid_at(c->string);
            if (at >= 0)
                return fail_at(w, "a key with the byte 0x%02x at byte %ld, which is not UTF-8",
                               (unsigned char)c->string[at], at);
        }
        if (check_duplicate_keys(w, v))
            return -1;
    }
    int i = 0;
    for (const cJSON *c = v->child; c; c = c->next, i++) {
        size_t s = cJSON_IsObject(v) ? push_key(w, c->string) : push_index(w, i);
        int rc = check_tree(w, c);
        pop(w, s);
        if (rc)
            return rc;
    }
    return 0;
}

// ----------------------------------------------------------------------------
// where the sweep writes

/* Which of the paths the sweep writes would overwrite what it must not: the
 * config file, or the results with the selection. 0 (none), 1 (the results
 * file) or 2 (the selection table), with the sentence in why. */
static int output_clash(const convt_config *cfg, char *why, size_t len)
{
    if (convt_same_file(cfg->output, cfg->path)) {
        snprintf(why, len, "the results file \"%s\" is the config file %s itself; the sweep "
                           "would overwrite it",
                 cfg->output, cfg->path);
        return 1;
    }
    if (convt_same_file(cfg->selection, cfg->path)) {
        snprintf(why, len, "the selection table \"%s\" is the config file %s itself; the "
                           "sweep would overwrite it",
                 cfg->selection, cfg->path);
        return 2;
    }
    if (convt_same_file(cfg->selection, cfg->output)) {
        snprintf(why, len, "the selection table \"%s\" is the results file; give each a path "
                           "of its own",
                 cfg->selection);
        return 2;
    }
    return 0;
}

int convt_config_check_outputs(const convt_config *cfg, convt_err *e)
{
    char why[768];
    return output_clash(cfg, why, sizeof why) ? convt_fail(e, "%s", why) : 0;
}

int convt_config_parse(const char *text, const char *path, convt_config *cfg, convt_err *e)
{
    static const char *const keys[] = {"description", "output",   "selection", "seed",
                                       "backend",     "variants", "launch",    "measure",
                                       "validation",  "workspace_limit_mb",    "shapes",
                                       "sweeps",      "random",   NULL};
    walker w = {.file = path, .e = e};
    convt_config_init(cfg);
    cfg->path = dup_string(path);
    if (!cfg->path)
        return convt_fail(e, "%s: out of memory", path);
    char why[768];
    const char *bad = strict_json_problem(text, why, sizeof why);
    if (bad) {
        int line, col;
        line_col(text, bad, &line, &col);
        return convt_fail(e, "%s:%d:%d: not valid JSON: %s", path, line, col, why);
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, true);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        int line, col;
        line_col(text, at ? at : text, &line, &col);
        if (!text[strspn(text, " \t\r\n")])
            return convt_fail(e, "%s: the file is empty; expected a JSON object", path);
        char near[24];
        snprintf(near, sizeof near, "%.20s", at ? at : "");
        near[strcspn(near, "\r\n")] = 0;
        return convt_fail(e, "%s:%d:%d: not valid JSON, near \"%s\"", path, line, col, near);
    }
    cfg->json = root;
    if (check_tree(&w, root))
        return -1;
    if (!cJSON_IsObject(root))
        return expected(&w, root, "a JSON object at the top level");
    const char *output = "results/results.json", *selection = NULL, *backend = NULL,
               *description = NULL;
    int64_t ws_mb = 4096;
    const cJSON *o;
    if (check_keys(&w, root, keys) || get_string(&w, root, "description", &description) ||
        get_string(&w, root, "output", &output) ||
        get_string(&w, root, "selection", &selection) ||
        get_seed(&w, root, "seed", &cfg->seed) ||
        get_string(&w, root, "backend", &backend) ||
        get_int(&w, root, "workspace_limit_mb", 0, 1 << 24, &ws_mb))
        return -1;
    cfg->workspace_limit = (size_t)ws_mb << 20;
    if (backend) {
        if (!strcmp(backend, "auto"))
            cfg->backend = CONVT_WANT_AUTO;
        else if (!strcmp(backend, "cpu"))
            cfg->backend = CONVT_WANT_CPU;
        else if (!strcmp(backend, "cuda"))
            cfg->backend = CONVT_WANT_CUDA;
        else {
            push_key(&w, "backend");
            return fail_at(&w, "expected \"auto\", \"cpu\" or \"cuda\", got \"%s\"", backend);
        }
    }
    cfg->output = dup_string(output);
    cfg->selection = selection ? dup_string(selection) : convt_selection_path(output);
    if (!cfg->output || !cfg->selection)
        return convt_fail(e, "%s: out of memory", path);
    int clash = output_clash(cfg, why, sizeof why);
    if (clash) {
        /* a derived selection path is the doing of "output" */
        push_key(&w, clash == 2 && selection ? "selection" : "output");
        return fail_at(&w, "%s", why);
    }
    const cJSON *variants = cJSON_GetObjectItemCaseSensitive(root, "variants");
    if (variants) {
        if (parse_variants(&w, variants, cfg))
            return -1;
    } else {
        cfg->patterns = calloc(1, sizeof *cfg->patterns);
        cfg->patterns[cfg->n_patterns++] = dup_string("*");
    }
    if ((o = cJSON_GetObjectItemCaseSensitive(root, "launch")) && parse_launch(&w, o, cfg))
        return -1;
    if ((o = cJSON_GetObjectItemCaseSensitive(root, "measure")) &&
        parse_measure(&w, o, &cfg->measure))
        return -1;
    if ((o = cJSON_GetObjectItemCaseSensitive(root, "validation")) &&
        parse_validation(&w, o, &cfg->validation))
        return -1;
    if ((o = cJSON_GetObjectItemCaseSensitive(root, "shapes")) && parse_shapes(&w, o, cfg))
        return -1;
    if ((o = cJSON_GetObjectItemCaseSensitive(root, "sweeps"))) {
        size_t s = push_key(&w, "sweeps");
        if (!cJSON_IsArray(o))
            return expected(&w, o, "an array of sweep objects");
        int i = 0;
        for (const cJSON *c = o->child; c; c = c->next, i++) {
            size_t s2 = push_index(&w, i);
            if (parse_sweep(&w, c, cfg))
                return -1;
            pop(&w, s2);
        }
        pop(&w, s);
    }
    if ((o = cJSON_GetObjectItemCaseSensitive(root, "random")) && parse_random(&w, o, cfg))
        return -1;
    if (cfg->n_shapes == 0)
        return fail_at(&w, "no shapes: give \"shapes\", \"sweeps\" or \"random\" (a non-empty "
                           "list)");
    return 0;
}

int convt_config_load(const char *path, convt_config *cfg, convt_err *e)
{
    convt_config_init(cfg);
    char *text = convt_read_text_file_max(path, CONVT_CONFIG_MAX_BYTES, e);
    if (!text)
        return -1;
    int rc = convt_config_parse(text, path, cfg, e);
    free(text);
    return rc;
}

void convt_config_finish(convt_config *cfg)
{
    free(cfg->path);
    free(cfg->output);
    free(cfg->selection);
    for (int i = 0; i < cfg->n_patterns; i++)
        free(cfg->patterns[i]);
    free(cfg->patterns);
    free(cfg->overrides);
    free(cfg->shapes);
    for (int i = 0; i < cfg->n_notes; i++)
        free(cfg->notes[i]);
    free(cfg->notes);
    cJSON_Delete(cfg->json);
    memset(cfg, 0, sizeof *cfg);
}

char *convt_selection_path(const char *output)
{
    size_t n = strlen(output);
    char *path = malloc(n + 16);
    if (!path)
        return NULL;
    const char *dot = strrchr(output, '.'), *slash = strrchr(output, '/');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - output) : n;
    snprintf(path, n + 16, "%.*s.selection.json", (int)stem, output);
    return path;
}

int convt_config_knob_values(const convt_config *cfg, const convt_variant *v, int k,
                             const int64_t **values)
{
    for (int i = cfg->n_overrides - 1; i >= 0; i--)
        if (cfg->overrides[i].variant == v && cfg->overrides[i].knob == k) {
            *values = cfg->overrides[i].values;
            return cfg->overrides[i].n;
        }
    *values = v->knobs[k].defaults;
    return v->knobs[k].n_defaults;
}

bool convt_config_wants(const convt_config *cfg, const convt_variant *v)
{
    for (int i = 0; i < cfg->n_patterns; i++)
        if (fnmatch(cfg->patterns[i], v->name, 0) == 0)
            return true;
    return false;
}
