/* Run-time tuning (convt_table_enable_tuning): a shape the table lacks is
 * measured by convt-bench itself, in its own processes (validated against
 * the float64 reference, timed over every candidate of the backend; a
 * candidate that crashes costs its record, not the caller's program), and
 * the winners of both tiers join the table and its file. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch_impl.h"
#include "json_access.h"
#include "problem_json.h"
#include "textfile.h"

#ifndef CONVT_BENCH_PATH
#define CONVT_BENCH_PATH "convt-bench"
#endif

extern char **environ;

static const char *bench_path(void)
{
    const char *b = getenv("CONVT_BENCH");
    return b && *b ? b : CONVT_BENCH_PATH;
}

static int run_bench(const convt_ctx *ctx, const char *cfg, const char *out, convt_err *e)
{
    char device[16];
    snprintf(device, sizeof device, "%d", ctx->device < 0 ? 0 : ctx->device);
    const char *argv[16 + 2 * CONVT_CTX_MAX_PLUGINS];
    int a = 0;
    argv[a++] = bench_path();
    argv[a++] = "--config";
    argv[a++] = cfg;
    argv[a++] = "--out";
    argv[a++] = out;
    argv[a++] = "--quiet";
    argv[a++] = "--backend";
    argv[a++] = convt_backend_kind_name(ctx->kind);
    argv[a++] = "--devices";
    argv[a++] = device;
    for (int i = 0; i < ctx->n_plugins; i++) {
        argv[a++] = "--plugin";
        argv[a++] = ctx->plugin_paths[i];
    }
    argv[a] = NULL;
    /* its output would be the caller's: to /dev/null, errors kept in the file */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return convt_fail(e, "cannot start %s (CONVT_BENCH names another): %s", argv[0],
                          strerror(rc));
    int st = 0;
    pid_t r;
    while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    if (r < 0) {
        /* ECHILD: the caller ignores SIGCHLD, and the status is gone; the
         * selection file says whether it finished */
        if (errno == ECHILD)
            return 0;
        return convt_fail(e, "waiting for %s: %s", argv[0], strerror(errno));
    }
    /* 0: all ok; 1: some candidate failed or was wrong (recorded, not chosen) */
    if (!WIFEXITED(st) || WEXITSTATUS(st) > 1)
        return convt_fail(e, "%s --config %s ended with %s %d", argv[0], cfg,
                          WIFEXITED(st) ? "status" : "signal",
                          WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    return 0;
}

int convt_tune_shape(convt_table *t, const convt_problem *p, convt_err *e)
{
    char dir[] = "/tmp/convt-tune.XXXXXX";
    if (!mkdtemp(dir))
        return convt_fail(e, "mkdtemp: %s", strerror(errno));
    char cfg[64], out[64], sel_path[96];
    snprintf(cfg, sizeof cfg, "%s/shape.json", dir);
    snprintf(out, sizeof out, "%s/results.json", dir);
    snprintf(sel_path, sizeof sel_path, "%s/results.selection.json", dir);
    int rc = -1;
    bool keep = false;
    cJSON *sel = NULL;
    /* CONVT_TUNE_CONFIG: a sweep file whose settings (variants, launch,
     * measure, validation, ...) the tuning config takes; its shapes and
     * output are replaced. Without it, convt-bench's defaults: every variant
     * of the backend at its default launches. */
    cJSON *config = NULL;
    const char *base = getenv("CONVT_TUNE_CONFIG");
    if (base && *base) {
        char *bt = convt_read_text_file(base, e);
        if (!bt) {
            rmdir(dir);
            return -1;
        }
        config = cJSON_Parse(bt);
        free(bt);
        if (!cJSON_IsObject(config)) {
            cJSON_Delete(config);
            rmdir(dir);
            return convt_fail(e, "CONVT_TUNE_CONFIG %s: not a JSON object", base);
        }
        cJSON_DeleteItemFromObjectCaseSensitive(config, "shapes");
        cJSON_DeleteItemFromObjectCaseSensitive(config, "output");
        cJSON_DeleteItemFromObjectCaseSensitive(config, "selection");
    } else {
        config = cJSON_CreateObject();
    }
    convt_problem named = *p;
    if (!named.name[0])
        snprintf(named.name, sizeof named.name, "tuned");
    cJSON *shapes = cJSON_AddArrayToObject(config, "shapes");
    cJSON_AddItemToArray(shapes, convt_problem_json(&named, false));
    char *text = cJSON_Print(config);
    cJSON_Delete(config);
    if (!text || convt_write_text_atomic(cfg, text, e))
        goto out;
    if (run_bench(t->ctx, cfg, out, e))
        goto out;
    if (access(sel_path, R_OK) != 0) {
        convt_fail(e, "%s finished without a selection table (%s)", bench_path(), sel_path);
        goto out;
    }
    char *st = convt_read_text_file(sel_path, e);
    if (!st)
        goto out;
    sel = cJSON_Parse(st);
    free(st);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(sel, "selections");
    cJSON *doc_rows = cJSON_GetObjectItemCaseSensitive(t->doc, "selections");
    int added = 0;
    for (const cJSON *r = rows ? rows->child : NULL; r; r = r->next) {
        convt_table_row row;
        convt_err why = {{0}, 0};
        if (convt_table_row_parse(t->ctx, r, &row, &why))
            continue;
        bool have = false; /* a row of this key and tier already: no second */
        for (int i = 0; i < t->n_rows && !have; i++)
            have = t->rows[i].tier == row.tier && !strcmp(t->rows[i].key, row.key);
        if (have || convt_table_add_row(t, &row, e))
            continue;
        if (cJSON_IsArray(doc_rows))
            cJSON_AddItemToArray(doc_rows, cJSON_Duplicate(r, true));
        added++;
    }
    if (!added) {
        convt_fail(e, "convt-bench found no valid variant for the shape (see %s)", out);
        keep = true; /* the message points at the records */
        goto out;
    }
    char *doc = cJSON_Print(t->doc);
    rc = doc ? convt_write_text_atomic(t->tune_path, doc, e) : convt_fail(e, "out of memory");
    free(doc);
out:
    free(text);
    cJSON_Delete(sel);
    if (!keep) { /* in the table now, or of no use: a long-running caller must not fill /tmp */
        unlink(cfg);
        unlink(out);
        unlink(sel_path);
        rmdir(dir);
    }
    return rc;
}
