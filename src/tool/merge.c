#include "merge.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_access.h"
#include "run_index.h"
#include "results.h"

static const char *const known_tools[] = {"convt-bench", "convt-bench torch_baseline", NULL};

static bool known_tool(const char *tool)
{
    for (const char *const *t = known_tools; *t; t++)
        if (!strcmp(tool, *t))
            return true;
    return false;
}

static const cJSON *device_of(const cJSON *doc)
{
    return cJSON_GetObjectItemCaseSensitive(doc, "device");
}

/* The value of one field as text, for messages and equality ("(none)"). */
static void field_text(const cJSON *o, const char *key, char *buf, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char *s = v ? cJSON_PrintUnformatted(v) : NULL;
    snprintf(buf, len, "%s", s ? s : "(none)");
    cJSON_free(s);
}

/* Fields that must agree, and those that may differ with a warning. */
typedef struct field_rule {
    const char *key;
    bool in_device; /* under "device", else at the top */
    bool must_match;
} field_rule;

static const field_rule rules[] = {
    {"backend", false, true},
    {"name", true, true},
    {"compute_capability", true, true},
    {"driver_version", true, false},
    {"runtime_version", true, false},
    {"cudnn_version", true, false},
    {"git_revision", false, false},
    {"config_path", false, false},
};

/* 0, or -1 with e set when a must-match field differs and !force. */
static int check_against_first(const cJSON *first, const char *first_path, const cJSON *doc,
                               const char *path, bool force, FILE *warn, convt_err *e)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const cJSON *a = rules[i].in_device ? device_of(first) : first;
        const cJSON *b = rules[i].in_device ? device_of(doc) : doc;
        /* a field only one side records (PyTorch knows no driver version of
         * ours) says nothing either way */
        if (!cJSON_GetObjectItemCaseSensitive(a, rules[i].key) ||
            !cJSON_GetObjectItemCaseSensitive(b, rules[i].key))
            continue;
        char va[256], vb[256];
        field_text(a, rules[i].key, va, sizeof va);
        field_text(b, rules[i].key, vb, sizeof vb);
        if (!strcmp(va, vb))
            continue;
        const char *where = rules[i].in_device ? "device." : "";
        if (rules[i].must_match && !force)
            return convt_fail(e, "%s: %s%s is %s, but %s has %s: merge joins runs of one device "
                                 "and backend (--force to join them anyway)",
                              path, where, rules[i].key, vb, first_path, va);
        if (warn)
            fprintf(warn, "convt-bench merge: warning: %s: %s%s is %s, %s has %s\n", path, where,
                    rules[i].key, vb, first_path, va);
    }
    return 0;
}

static cJSON *source_entry(const cJSON *doc, const char *path)
{
    static const char *const keys[] = {"tool", "version", "git_revision", "time", "host",
                                       "config_path", "seed", "drift", NULL};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", path);
    for (const char *const *k = keys; *k; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, *k);
        if (v)
            cJSON_AddItemToObject(o, *k, cJSON_Duplicate(v, true));
    }
    cJSON_AddNumberToObject(o, "records",
                            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "records")));
    return o;
}

/* Every input readable by this code, and of a tool merge knows. */
static int check_inputs(const cJSON *const *docs, const char *const *paths, int n, bool force,
                        convt_err *e)
{
    for (int i = 0; i < n; i++) {
        if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(docs[i], "records")))
            return convt_fail(e, "%s: not a results file (no \"records\" array)", paths[i]);
        double schema = json_num(docs[i], "schema");
        if (schema > CONVT_RESULTS_SCHEMA)
            return convt_fail(e, "%s: results schema %g is newer than this convt-bench reads "
                                 "(%d)",
                              paths[i], schema, CONVT_RESULTS_SCHEMA);
        const char *tool = json_str(docs[i], "tool");
        if (!known_tool(tool) && !force)
            return convt_fail(e, "%s: written by \"%s\", not by convt-bench or "
                                 "tools/torch_baseline.py (--force to join it anyway)",
                              paths[i], tool);
    }
    return 0;
}

cJSON *convt_merge(const cJSON *const *docs, const char *const *paths, int n, bool force,
                   FILE *warn, convt_err *e)
{
    if (n < 1) {
        convt_fail(e, "nothing to merge");
        return NULL;
    }
    if (check_inputs(docs, paths, n, force, e))
        return NULL;
    /* the head comes from the first convt-bench file: its ceilings and
     * drift describe the device as convt-bench measured it */
    int head = 0;
    while (head < n && strcmp(json_str(docs[head], "tool"), "convt-bench"))
        head++;
    if (head == n)
        head = 0;
    for (int i = 0; i < n; i++)
        if (i != head &&
            check_against_first(docs[head], paths[head], docs[i], paths[i], force, warn, e))
            return NULL;

    cJSON *out = cJSON_CreateObject();
    for (const cJSON *f = docs[head]->child; f; f = f->next)
        if (strcmp(f->string, "records") && strcmp(f->string, "merged_from"))
            cJSON_AddItemToObject(out, f->string, cJSON_Duplicate(f, true));
    /* the merged file is convt-bench's own, whatever its first input said
     * (a forced join may have a head without these fields) */
    cJSON_DeleteItemFromObjectCaseSensitive(out, "tool");
    cJSON_DeleteItemFromObjectCaseSensitive(out, "schema");
    cJSON_AddStringToObject(out, "tool", "convt-bench");
    cJSON_AddNumberToObject(out, "schema", CONVT_RESULTS_SCHEMA);
    /* one incomplete input makes the whole incomplete; a config hash names
     * one run, which a merged file is not */
    cJSON_DeleteItemFromObjectCaseSensitive(out, "config_hash");
    for (int i = 0; i < n; i++)
        if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(docs[i], "complete"))) {
            cJSON_DeleteItemFromObjectCaseSensitive(out, "complete");
            cJSON_DeleteItemFromObjectCaseSensitive(out, "incomplete_because");
            cJSON_AddBoolToObject(out, "complete", false);
            char why[600];
            snprintf(why, sizeof why, "%s is incomplete: %s", paths[i],
                     json_str(docs[i], "incomplete_because"));
            cJSON_AddStringToObject(out, "incomplete_because", why);
            break;
        }
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(out, "merged_time", when);
    cJSON *from = cJSON_AddArrayToObject(out, "merged_from");
    cJSON *records = cJSON_AddArrayToObject(out, "records");
    int dropped = 0;
    convt_run_index merged; /* the records kept so far, by what they ran */
    if (convt_run_index_init(&merged, 0)) {
        convt_fail(e, "out of memory merging");
        cJSON_Delete(out);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        /* a file that was itself merged keeps its sources' provenance */
        const cJSON *inner = cJSON_GetObjectItemCaseSensitive(docs[i], "merged_from");
        if (cJSON_IsArray(inner))
            for (const cJSON *s = inner->child; s; s = s->next)
                cJSON_AddItemToArray(from, cJSON_Duplicate(s, true));
        else
            cJSON_AddItemToArray(from, source_entry(docs[i], paths[i]));
        const cJSON *recs = cJSON_GetObjectItemCaseSensitive(docs[i], "records");
        for (const cJSON *r = recs->child; r; r = r->next) {
            const cJSON *dup = convt_run_index_find(&merged, r);
            if (dup && !force) {
                convt_fail(e, "%s: the record %s / %s %s (%s) is also in %s: merge joins runs "
                              "of different things (--force keeps the first)",
                           paths[i], json_str(cJSON_GetObjectItemCaseSensitive(r, "shape"), "name"),
                           json_str(r, "variant"), json_str(r, "launch_key"), json_str(r, "tier"),
                           json_str(dup, "source"));
                convt_run_index_free(&merged);
                cJSON_Delete(out);
                return NULL;
            }
            if (dup) {
                dropped++;
                continue;
            }
            cJSON *copy = cJSON_Duplicate(r, true);
            if (!cJSON_GetObjectItemCaseSensitive(copy, "source"))
                cJSON_AddStringToObject(copy, "source", paths[i]);
            cJSON_AddItemToArray(records, copy);
            if (convt_run_index_add(&merged, copy)) {
                convt_fail(e, "out of memory merging");
                convt_run_index_free(&merged);
                cJSON_Delete(out);
                return NULL;
            }
        }
    }
    convt_run_index_free(&merged);
    if (dropped && warn)
        fprintf(warn, "convt-bench merge: warning: %d record%s found in an earlier file too "
                      "%s dropped (--force)\n",
                dropped, dropped == 1 ? "" : "s", dropped == 1 ? "was" : "were");
    return out;
}
