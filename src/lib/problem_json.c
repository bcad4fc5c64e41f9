#include "problem_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static cJSON *int_array(const int64_t *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
    return a;
}

cJSON *convt_problem_json(const convt_problem *p, bool derived)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", p->name);
    if (derived) {
        char key[256];
        convt_problem_key(p, key, sizeof key);
        cJSON_AddStringToObject(o, "key", key);
        cJSON_AddNumberToObject(o, "dims", p->dims);
    }
    cJSON_AddNumberToObject(o, "n", (double)p->n);
    cJSON_AddNumberToObject(o, "cin", (double)p->cin);
    cJSON_AddNumberToObject(o, "cout", (double)p->cout);
    cJSON_AddNumberToObject(o, "groups", (double)p->groups);
    cJSON_AddBoolToObject(o, "bias", p->bias);
    cJSON_AddItemToObject(o, "in", int_array(p->in, p->dims));
    cJSON_AddItemToObject(o, "k", int_array(p->k, p->dims));
    cJSON_AddItemToObject(o, "stride", int_array(p->stride, p->dims));
    cJSON_AddItemToObject(o, "pad", int_array(p->pad, p->dims));
    cJSON_AddItemToObject(o, "out_pad", int_array(p->out_pad, p->dims));
    cJSON_AddItemToObject(o, "dil", int_array(p->dil, p->dims));
    if (derived) {
        int64_t out[5] = {p->n, p->cout};
        for (int d = 0; d < p->dims; d++)
            out[2 + d] = convt_out_size(p, d);
        cJSON_AddItemToObject(o, "output", int_array(out, 2 + p->dims));
        cJSON_AddNumberToObject(o, "gflop", convt_flops(p) / 1e9);
        cJSON_AddNumberToObject(o, "min_gb", convt_min_bytes(p) / 1e9);
    }
    return o;
}

static int whole(const cJSON *v, int64_t *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
        fabs(v->valuedouble) > 9.0e15)
        return -1;
    *out = (int64_t)v->valuedouble;
    return 0;
}

int convt_problem_from_json(const cJSON *o, convt_problem *p, convt_err *e)
{
    if (!cJSON_IsObject(o))
        return convt_fail(e, "a shape must be a JSON object");
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "in");
    int dims = cJSON_GetArraySize(in);
    if (!cJSON_IsArray(in) || dims < 1 || dims > CONVT_MAX_DIMS)
        return convt_fail(e, "shape: \"in\" must be an array of 1 to 3 sizes");
    *p = convt_problem_default(dims);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    if (cJSON_IsString(name))
        snprintf(p->name, sizeof p->name, "%s", name->valuestring);
    struct { const char *key; int64_t *v; bool need; } scalars[] = {
        {"n", &p->n, true}, {"cin", &p->cin, true}, {"cout", &p->cout, true},
        {"groups", &p->groups, false}};
    for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, scalars[i].key);
        if (!v && !scalars[i].need)
            continue;
        if (whole(v, scalars[i].v))
            return convt_fail(e, "shape: \"%s\" must be a whole number", scalars[i].key);
    }
    const cJSON *bias = cJSON_GetObjectItemCaseSensitive(o, "bias");
    if (bias && !cJSON_IsBool(bias))
        return convt_fail(e, "shape: \"bias\" must be true or false");
    p->bias = cJSON_IsTrue(bias);
    struct { const char *key; int64_t *v; bool need; } arrays[] = {
        {"in", p->in, true}, {"k", p->k, true}, {"stride", p->stride, false},
        {"pad", p->pad, false}, {"out_pad", p->out_pad, false}, {"dil", p->dil, false}};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, arrays[i].key);
        if (!a && !arrays[i].need)
            continue;
        if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != dims)
            return convt_fail(e, "shape: \"%s\" must be an array of %d whole numbers",
                              arrays[i].key, dims);
        int d = 0;
        for (const cJSON *x = a->child; x; x = x->next, d++)
            if (whole(x, &arrays[i].v[d]))
                return convt_fail(e, "shape: \"%s\"[%d] must be a whole number", arrays[i].key,
                                  d);
    }
    char why[256];
    if (convt_problem_check(p, why, sizeof why))
        return convt_fail(e, "shape: %s", why);
    return 0;
}
