#include "select.h"
#include "json_access.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

static double median_of(const cJSON *rec)
{
    return json_num(cJSON_GetObjectItemCaseSensitive(rec, "timing"), "median_ms");
}

static bool usable(const cJSON *rec)
{
    return !strcmp(json_str(rec, "status"), "ok") && isfinite(median_of(rec));
}

static const char *key_of(const cJSON *rec)
{
    return json_str(cJSON_GetObjectItemCaseSensitive(rec, "shape"), "key");
}

/* Fastest usable record of (key, tier), optionally restricted to one variant. */
static const cJSON *fastest(const cJSON *records, const char *key, const char *tier,
                            const char *variant)
{
    const cJSON *best = NULL;
    for (const cJSON *r = records->child; r; r = r->next) {
        if (!usable(r) || strcmp(key_of(r), key) || strcmp(json_str(r, "tier"), tier) ||
            (variant && strcmp(json_str(r, "variant"), variant)))
            continue;
        if (!best || median_of(r) < median_of(best))
            best = r;
    }
    return best;
}

cJSON *convt_select(const cJSON *results)
{
    static const char *const tiers[] = {"fp32", "tf32"};
    const cJSON *records = cJSON_GetObjectItemCaseSensitive(results, "records");
    cJSON *sel = cJSON_CreateObject();
    cJSON_AddStringToObject(sel, "tool", "convt-bench selection");
    cJSON_AddStringToObject(sel, "results_time", json_str(results, "time"));
    cJSON_AddStringToObject(sel, "backend", json_str(results, "backend"));
    cJSON_AddStringToObject(sel, "device",
                            json_str(cJSON_GetObjectItemCaseSensitive(results, "device"), "name"));
    cJSON *out = cJSON_AddArrayToObject(sel, "selections");
    if (!cJSON_IsArray(records))
        return sel;
    for (const cJSON *r = records->child; r; r = r->next) {
        const char *key = key_of(r);
        bool seen = false; /* first record of each shape key opens its rows */
        for (const cJSON *q = records->child; q != r; q = q->next)
            seen |= !strcmp(key_of(q), key);
        if (seen)
            continue;
        for (int t = 0; t < 2; t++) {
            bool tier_present = false;
            for (const cJSON *q = r; q; q = q->next)
                tier_present |= !strcmp(key_of(q), key) && !strcmp(json_str(q, "tier"), tiers[t]);
            if (!tier_present)
                continue;
            const cJSON *shape = cJSON_GetObjectItemCaseSensitive(r, "shape");
            cJSON *row = cJSON_CreateObject();
            cJSON_AddStringToObject(row, "name", json_str(shape, "name"));
            cJSON_AddStringToObject(row, "key", key);
            cJSON_AddStringToObject(row, "tier", tiers[t]);
            cJSON_AddItemToObject(row, "shape", cJSON_Duplicate(shape, true));
            const cJSON *best = fastest(records, key, tiers[t], NULL);
            if (!best) {
                cJSON_AddNullToObject(row, "variant");
                cJSON_AddStringToObject(row, "note", "no run of this tier passed validation");
                cJSON_AddItemToArray(out, row);
                continue;
            }
            cJSON_AddStringToObject(row, "variant", json_str(best, "variant"));
            cJSON_AddItemToObject(row, "launch", cJSON_Duplicate(
                cJSON_GetObjectItemCaseSensitive(best, "launch"), true));
            cJSON_AddStringToObject(row, "launch_key", json_str(best, "launch_key"));
            cJSON_AddNumberToObject(row, "median_ms", median_of(best));
            double noise = json_num(cJSON_GetObjectItemCaseSensitive(best, "timing"), "noise");
            if (isfinite(noise))
                cJSON_AddNumberToObject(row, "noise", noise);
            double ff = json_num(best, "floor_fraction");
            if (isfinite(ff))
                cJSON_AddNumberToObject(row, "floor_fraction", ff);
            char baseline[32];
            snprintf(baseline, sizeof baseline, "cudnn_%s", tiers[t]);
            const cJSON *base = fastest(records, key, tiers[t], baseline);
            if (base) {
                cJSON_AddStringToObject(row, "baseline", baseline);
                cJSON_AddNumberToObject(row, "baseline_ms", median_of(base));
                cJSON_AddNumberToObject(row, "speedup", median_of(base) / median_of(best));
            }
            cJSON_AddItemToArray(out, row);
        }
    }
    return sel;
}

void convt_selection_print(const cJSON *sel, FILE *f)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(sel, "selections");
    fprintf(f, "%-28s %-5s %-16s %-22s %11s %9s %9s\n", "shape", "tier", "fastest", "launch",
            "median ms", "vs cudnn", "of floor");
    for (const cJSON *r = rows ? rows->child : NULL; r; r = r->next) {
        const char *variant = json_str(r, "variant");
        if (!variant[0]) {
            fprintf(f, "%-28.28s %-5s %s\n", json_str(r, "name"), json_str(r, "tier"),
                    "(no run passed validation)");
            continue;
        }
        char speed[16] = "-", floor[16] = "-";
        double s = json_num(r, "speedup"), ff = json_num(r, "floor_fraction");
        if (isfinite(s))
            snprintf(speed, sizeof speed, "%.2fx", s);
        if (isfinite(ff))
            snprintf(floor, sizeof floor, "%.1f%%", 100 * ff);
        fprintf(f, "%-28.28s %-5s %-16.16s %-22.22s %11.4f %9s %9s\n", json_str(r, "name"),
                json_str(r, "tier"), variant, json_str(r, "launch_key"), json_num(r, "median_ms"), speed,
                floor);
    }
}
