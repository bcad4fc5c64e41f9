/* libFuzzer target: the readers of results files, as `convt-bench compare`,
 * `select` and `merge` use them (src/tool/compare.h, src/tool/select.h, src/tool/merge.h).
 *
 * The input is parsed as JSON and, like main.c's read_document, accepted
 * only when it has a "records" array. Then, freeing everything:
 *  - convt_select(doc, NULL), the table printed as text and as markdown;
 *  - convt_select(doc, that table) (the previous-selection path), and, when
 *    the input also holds a "selections" array, convt_select(doc, doc);
 *  - convt_compare(doc, doc) into /dev/null, plain and strict markdown;
 *  - convt_merge of the doc alone, and with itself (force false, then
 *    true), each merged document selected again.
 * When the input also holds a second results document under the key
 * "fuzz_second" (an object with a "records" array), the pair is compared
 * (baseline doc, current second) and merged (force false and true), as two
 * files would be: two runs of one config, or a sweep and PyTorch's baseline.
 * Built by tests/fuzz/meson.build (-Dfuzz=true, clang) and run by
 * tools/fuzz.sh; tests/fuzz/standalone.c replays files through it without
 * libFuzzer (the unit test fuzz_seeds). */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "errors.h"
#include "merge.h"
#include "select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    if (!f)
        abort();
    return f;
}

static void select_and_print(const cJSON *doc, const cJSON *previous)
{
    cJSON *sel = convt_select(doc, previous);
    if (!sel)
        return;
    convt_selection_print(sel, false, devnull());
    convt_selection_print(sel, true, devnull());
    cJSON_Delete(sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memchr(data, 0, size))
        return 0; /* convt_read_text_file refuses these */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "records"))) {
        cJSON_Delete(doc);
        return 0;
    }

    /* select */
    cJSON *sel = convt_select(doc, NULL);
    if (sel) {
        convt_selection_print(sel, false, devnull());
        convt_selection_print(sel, true, devnull());
        select_and_print(doc, sel);
        cJSON_Delete(sel);
    }
    if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "selections")))
        select_and_print(doc, doc);

    /* compare */
    convt_compare_options opt = {.threshold = 0.05};
    convt_compare_summary sum;
    memset(&sum, 0, sizeof sum);
    convt_compare(doc, doc, &opt, devnull(), &sum);
    opt = (convt_compare_options){.threshold = 0.0, .markdown = true, .strict = true,
                                  .fail_on_ambiguous = true};
    memset(&sum, 0, sizeof sum);
    convt_compare(doc, doc, &opt, devnull(), &sum);

    /* merge */
    const cJSON *docs[2] = {doc, doc};
    const char *paths[2] = {"a.json", "b.json"};
    for (int run = 0; run < 3; run++) {
        /* the doc alone; with itself; with itself, forced */
        convt_err e = {{0}};
        cJSON *merged = convt_merge(docs, paths, run ? 2 : 1, run == 2, devnull(), &e);
        if (merged) {
            select_and_print(merged, NULL);
            cJSON_Delete(merged);
        } else if (!e.msg[0]) {
            abort(); /* a refusal must always say why */
        }
    }

    /* a second document: compare and merge the pair */
    const cJSON *second = cJSON_GetObjectItemCaseSensitive(doc, "fuzz_second");
    if (cJSON_IsObject(second) &&
        cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(second, "records"))) {
        docs[1] = second;
        opt = (convt_compare_options){.threshold = 0.05};
        memset(&sum, 0, sizeof sum);
        convt_compare(doc, second, &opt, devnull(), &sum);
        for (int force = 0; force <= 1; force++) {
            convt_err e = {{0}};
            cJSON *merged = convt_merge(docs, paths, 2, force, devnull(), &e);
            if (merged) {
                select_and_print(merged, NULL);
                cJSON_Delete(merged);
            } else if (!e.msg[0]) {
                abort();
            }
        }
    }
    cJSON_Delete(doc);
    return 0;
}
