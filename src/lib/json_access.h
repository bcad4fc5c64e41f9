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

/* Two records of the same run: shape key, variant, launch and tier alike
 * (how compare, merge and --resume match records). */
static inline bool json_same_run(const cJSON *a, const cJSON *b)
{
    static const char *const fields[] = {"variant", "launch_key", "tier"};
    if (strcmp(json_str(cJSON_GetObjectItemCaseSensitive(a, "shape"), "key"),
               json_str(cJSON_GetObjectItemCaseSensitive(b, "shape"), "key")))
        return false;
    for (int i = 0; i < 3; i++)
        if (strcmp(json_str(a, fields[i]), json_str(b, fields[i])))
            return false;
    return true;
}

#endif
