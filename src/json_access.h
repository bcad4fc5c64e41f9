/* Reading fields of a results document without a NULL check at every step:
 * a missing or mistyped field reads as "" or NaN, which the callers treat as
 * "not there". */
#ifndef CONVT_SRC_JSON_ACCESS_H
#define CONVT_SRC_JSON_ACCESS_H

#include <cjson/cJSON.h>
#include <math.h>

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

#endif
