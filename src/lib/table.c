/* Selection tables (convt-bench's X.selection.json) as libconvt reads them:
 * the checks that refuse a table measured elsewhere, and the rows a context
 * can run. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch_impl.h"
#include "json_access.h"
#include "problem_json.h"
#include "textfile.h"

int convt_table_row_parse(const convt_ctx *ctx, const cJSON *sel, convt_table_row *row,
                          convt_err *e)
{
    memset(row, 0, sizeof *row);
    snprintf(row->key, sizeof row->key, "%s", json_str(sel, "key"));
    const char *tier = json_str(sel, "tier");
    if (!strcmp(tier, "fp32"))
        row->tier = CONVT_TIER_FP32;
    else if (!strcmp(tier, "tf32"))
        row->tier = CONVT_TIER_TF32;
    else
        return convt_fail(e, "row %s: tier \"%s\" is neither fp32 nor tf32", row->key, tier);
    if (convt_problem_from_json(cJSON_GetObjectItemCaseSensitive(sel, "shape"), &row->shape, e))
        return -1;
    char key[256];
    convt_problem_key(&row->shape, key, sizeof key);
    if (strcmp(key, row->key))
        return convt_fail(e, "row %s: its shape's key is %s", row->key, key);
    snprintf(row->name, sizeof row->name, "%s", row->shape.name);
    const char *name = json_str(sel, "variant");
    row->variant = convt_ctx_variant(ctx, name);
    if (!row->variant)
        return convt_fail(e, "row %s: variant \"%s\" is not in this build for the %s backend",
                          row->key, name, convt_backend_kind_name(ctx->kind));
    const convt_variant *v = row->variant;
    row->launch = convt_launch_first_default(v);
    const cJSON *launch = cJSON_GetObjectItemCaseSensitive(sel, "launch");
    for (const cJSON *k = launch ? launch->child : NULL; k; k = k->next) {
        int i = convt_knob_index(v, k->string);
        if (i < 0 || !cJSON_IsNumber(k) || k->valuedouble != floor(k->valuedouble))
            return convt_fail(e, "row %s: %s has no knob %s of a whole value", row->key, v->name,
                              k->string);
        row->launch.value[i] = (int64_t)k->valuedouble;
    }
    convt_launch_format(v, &row->launch, row->launch_key, sizeof row->launch_key);
    row->median_ms = json_num(sel, "median_ms");
    return 0;
}

int convt_table_add_row(convt_table *t, const convt_table_row *row, convt_err *e)
{
    if (t->n_rows == t->cap_rows) {
        int cap = t->cap_rows ? 2 * t->cap_rows : 64;
        convt_table_row *r = realloc(t->rows, (size_t)cap * sizeof *r);
        if (!r)
            return convt_fail(e, "out of memory");
        t->rows = r;
        t->cap_rows = cap;
    }
    t->rows[t->n_rows++] = *row;
    return 0;
}

static convt_table *table_new(convt_ctx *ctx, convt_err *e)
{
    static atomic_uint_fast64_t next_id = 1;
    convt_table *t = calloc(1, sizeof *t);
    if (!t) {
        convt_fail(e, "out of memory");
        return NULL;
    }
    t->ctx = ctx;
    /* a table loaded after another was destroyed may get its address; its
     * plans must not be the other's */
    t->id = atomic_fetch_add(&next_id, 1);
    pthread_mutex_init(&t->lock, NULL);
    snprintf(t->device, sizeof t->device, "%s", ctx->dev.name);
    return t;
}

int convt_table_empty(convt_ctx *ctx, convt_table **table, convt_err *e)
{
    convt_table *t = table_new(ctx, e);
    if (!t)
        return -1;
    t->doc = cJSON_CreateObject();
    cJSON_AddStringToObject(t->doc, "tool", "convt-bench selection");
    cJSON_AddNumberToObject(t->doc, "table_schema", CONVT_TABLE_SCHEMA);
    cJSON_AddStringToObject(t->doc, "backend", convt_backend_kind_name(ctx->kind));
    cJSON_AddStringToObject(t->doc, "device", ctx->dev.name);
    cJSON_AddArrayToObject(t->doc, "selections");
    snprintf(t->path, sizeof t->path, "(empty table)");
    *table = t;
    return 0;
}

int convt_table_load(convt_ctx *ctx, const char *path, unsigned flags, convt_table **table,
                     convt_err *e)
{
    *table = NULL;
    char *text = convt_read_text_file(path, e);
    if (!text)
        return -1;
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc)
        return convt_fail(e, "%s: not JSON", path);
    int rc = -1;
    convt_table *t = NULL;
    const cJSON *sels = cJSON_GetObjectItemCaseSensitive(doc, "selections");
    if (strcmp(json_str(doc, "tool"), "convt-bench selection") || !cJSON_IsArray(sels)) {
        convt_fail(e, "%s: not a convt-bench selection table (convt-bench writes one beside "
                      "each results file: X.selection.json)", path);
        goto out;
    }
    /* tables written before the schema was recorded are schema 1 */
    double schema = json_num(doc, "table_schema");
    if (isfinite(schema) && schema != CONVT_TABLE_SCHEMA) {
        convt_fail(e, "%s: table schema %g; this library reads schema %d", path, schema,
                   CONVT_TABLE_SCHEMA);
        goto out;
    }
    const char *version = json_str(doc, "library_version");
    if (version[0] && atoi(version) != CONVT_VERSION_MAJOR) {
        convt_fail(e, "%s: written by convt-bench %s; this library is %d.%d (another major "
                      "version: its variants and knobs may differ)",
                   path, version, CONVT_VERSION_MAJOR, CONVT_VERSION_MINOR);
        goto out;
    }
    const char *backend = json_str(doc, "backend"), *device = json_str(doc, "device");
    if (!(flags & CONVT_TABLE_ANY_DEVICE) &&
        (strcmp(backend, convt_backend_kind_name(ctx->kind)) || strcmp(device, ctx->dev.name))) {
        convt_fail(e, "%s: measured on %s (%s backend); this context is %s (%s backend): its "
                      "winners need not be this device's (CONVT_TABLE_ANY_DEVICE uses it "
                      "anyway)",
                   path, device, backend, ctx->dev.name, convt_backend_kind_name(ctx->kind));
        goto out;
    }
    if (!(t = table_new(ctx, e)))
        goto out;
    snprintf(t->path, sizeof t->path, "%s", path);
    snprintf(t->device, sizeof t->device, "%s", device);
    for (const cJSON *s = sels->child; s; s = s->next) {
        convt_table_row row;
        convt_err why = {{0}, 0};
        if (convt_table_row_parse(ctx, s, &row, &why)) {
            if (!t->left_out++)
                snprintf(t->left_out_why, sizeof t->left_out_why, "%s", why.msg);
            continue;
        }
        if (convt_table_add_row(t, &row, e))
            goto out;
    }
    t->doc = doc;
    doc = NULL;
    *table = t;
    t = NULL;
    rc = 0;
out:
    cJSON_Delete(doc);
    convt_table_destroy(t);
    return rc;
}

void convt_table_describe(const convt_table *t, char *buf, size_t len)
{
    int n = 0;
    snprintf(buf, len, "%s: %s, %d rows used, %d left out%s%s%n", t->path, t->device, t->n_rows,
             t->left_out, t->left_out ? " (first: " : "", t->left_out ? t->left_out_why : "", &n);
    if (t->left_out && n > 0 && (size_t)n + 2 < len)
        snprintf(buf + n, len - (size_t)n, ")");
}

int convt_table_enable_tuning(convt_table *t, const char *path, convt_err *e)
{
    if (!path) {
        t->tune_path[0] = 0;
        return 0;
    }
    if (strcmp(t->device, t->ctx->dev.name))
        return convt_fail(e, "%s was measured on %s: tuning on %s would mix two devices' "
                             "winners in one file; tune into a table of this device",
                          t->path, t->device, t->ctx->dev.name);
    if (convt_check_writable(path, e))
        return -1;
    snprintf(t->tune_path, sizeof t->tune_path, "%s", path);
    return 0;
}

void convt_table_destroy(convt_table *t)
{
    if (!t)
        return;
    cJSON_Delete(t->doc);
    free(t->rows);
    pthread_mutex_destroy(&t->lock);
    free(t);
}
