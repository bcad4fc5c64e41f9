/* Reading fields of a results document without a NULL check at every step:
 * a missing or mistyped field reads as "" or NaN, which the callers treat as
 * "not there". */
#ifndef CONVT_SRC_JSON_ACCESS_H
#define CONVT_SRC_JSON_ACCESS_H

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

static inline const char *json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static inline double json_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A record's shape key ("" where absent). */
static inline const char *json_shape_key(const cJSON *rec)
{
    return json_str(cJSON_GetObjectItemCaseSensitive(rec, "shape"), "key");
}

/* A record's median time in ms (timing.median_ms; NaN where absent). */
static inline double json_median_ms(const cJSON *rec)
{
    return json_num(cJSON_GetObjectItemCaseSensitive(rec, "timing"), "median_ms");
}

/* Whether a record passed and was timed: status ok and a median. */
static inline bool json_ok_timed(const cJSON *rec)
{
    return !strcmp(json_str(rec, "status"), "ok") && isfinite(json_median_ms(rec));
}

/* Whether rec ran this run: shape key, variant, launch and tier. */
static inline bool json_run_is(const cJSON *rec, const char *key, const char *variant,
                               const char *launch_key, const char *tier)
{
    return !strcmp(json_shape_key(rec), key) && !strcmp(json_str(rec, "variant"), variant) &&
           !strcmp(json_str(rec, "launch_key"), launch_key) && !strcmp(json_str(rec, "tier"), tier);
}

/* Two records of the same run (how compare, merge and --resume match
 * records). */
static inline bool json_same_run(const cJSON *a, const cJSON *b)
{
    return json_run_is(a, json_shape_key(b), json_str(b, "variant"), json_str(b, "launch_key"),
                       json_str(b, "tier"));
}

#endif
