/* merge (merge.h): results of one device are joined, with their sources
 * recorded; other devices, backends, tools, newer schemas and duplicate
 * records are refused with the file and the value, unless forced; the
 * binary writes the merged file and its selection, never over an input.
 * And PyTorch's baseline file as tools/torch_baseline.py writes it
 * (tests/data/, from an H100 run) merges with the convt-bench run of the
 * same config and device, and serves as the baseline of the selection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge.h"
#include "results.h"
#include "select.h"
#include "test_util.h"

static cJSON *rec(const char *key, const char *variant, const char *tier, double ms)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *s = cJSON_AddObjectToObject(r, "shape");
    cJSON_AddStringToObject(s, "key", key);
    cJSON_AddStringToObject(s, "name", key);
    cJSON_AddStringToObject(r, "variant", variant);
    cJSON_AddStringToObject(r, "tier", tier);
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddStringToObject(r, "launch_key", "-");
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(r, "timing"), "median_ms", ms);
    return r;
}

static cJSON *doc(const char *tool, const char *gpu, const char *variant, double ms)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "tool", tool);
    cJSON_AddNumberToObject(d, "schema", CONVT_RESULTS_SCHEMA);
    cJSON_AddStringToObject(d, "backend", "cuda");
    cJSON_AddStringToObject(d, "git_revision", "abc");
    cJSON *dev = cJSON_AddObjectToObject(d, "device");
    cJSON_AddStringToObject(dev, "name", gpu);
    cJSON_AddStringToObject(dev, "compute_capability", "9.0");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "records"), rec("A", variant, "tf32", ms));
    return d;
}

static cJSON *merge2(cJSON *a, cJSON *b, bool force, convt_err *e)
{
    const cJSON *docs[] = {a, b};
    const char *paths[] = {"a.json", "b.json"};
    cJSON *m = convt_merge(docs, paths, 2, force, NULL, e);
    cJSON_Delete(a);
    cJSON_Delete(b);
    return m;
}

static void one_device_merges_with_its_sources(void **state)
{
    (void)state;
    convt_err e = {{0}};
    cJSON *m = merge2(doc("convt-bench", "H100", "mine", 1.0),
                      doc("convt-bench torch_baseline", "H100", "torch_tf32", 2.0), false, &e);
    assert_non_null(m);
    const cJSON *recs = cJSON_GetObjectItem(m, "records");
    assert_int_equal(cJSON_GetArraySize(recs), 2);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(recs, 1), "source")->valuestring,
                        "b.json");
    const cJSON *from = cJSON_GetObjectItem(m, "merged_from");
    assert_int_equal(cJSON_GetArraySize(from), 2);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(from, 1), "tool")->valuestring,
                        "convt-bench torch_baseline");
    assert_string_equal(cJSON_GetObjectItem(m, "tool")->valuestring, "convt-bench");
    /* the selection of the merged file measures ours against PyTorch */
    cJSON *sel = convt_select(m, NULL);
    const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(sel, "selections"), 0);
    assert_string_equal(cJSON_GetObjectItem(row, "variant")->valuestring, "mine");
    assert_true(cJSON_GetObjectItem(row, "speedup")->valuedouble == 2.0);
    cJSON_Delete(sel);
    /* a merged file merges again, keeping its sources */
    const cJSON *docs[] = {m};
    const char *paths[] = {"m.json"};
    cJSON *mm = convt_merge(docs, paths, 1, false, NULL, &e);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(mm, "merged_from")), 2);
    cJSON_Delete(mm);
    cJSON_Delete(m);
}

static void other_devices_tools_and_duplicates_are_refused(void **state)
{
    (void)state;
    convt_err e = {{0}};
    assert_null(merge2(doc("convt-bench", "H100", "a", 1), doc("convt-bench", "H200", "b", 1),
                       false, &e));
    assert_non_null(strstr(e.msg, "b.json: device.name is \"H200\", but a.json has \"H100\""));
    /* forced: joined, since the person asked */
    cJSON *m = merge2(doc("convt-bench", "H100", "a", 1), doc("convt-bench", "H200", "b", 1), true,
                      &e);
    assert_non_null(m);
    cJSON_Delete(m);

    cJSON *cpu = doc("convt-bench", "H100", "b", 1);
    cJSON_ReplaceItemInObject(cpu, "backend", cJSON_CreateString("cpu"));
    assert_null(merge2(doc("convt-bench", "H100", "a", 1), cpu, false, &e));
    assert_non_null(strstr(e.msg, "backend is \"cpu\""));

    assert_null(merge2(doc("convt-bench", "H100", "a", 1),
                       doc("convt-bench selection", "H100", "b", 1), false, &e));
    assert_non_null(strstr(e.msg, "b.json: written by \"convt-bench selection\""));

    cJSON *newer = doc("convt-bench", "H100", "b", 1);
    cJSON_ReplaceItemInObject(newer, "schema", cJSON_CreateNumber(CONVT_RESULTS_SCHEMA + 1));
    assert_null(merge2(doc("convt-bench", "H100", "a", 1), newer, true, &e)); /* even forced */
    assert_non_null(strstr(e.msg, "newer than this convt-bench reads"));

    /* the same record in both: refused; forced, the first one stays */
    assert_null(merge2(doc("convt-bench", "H100", "a", 1), doc("convt-bench", "H100", "a", 2),
                       false, &e));
    assert_non_null(strstr(e.msg, "b.json: the record A / a - (tf32) is also in a.json"));
    m = merge2(doc("convt-bench", "H100", "a", 1), doc("convt-bench", "H100", "a", 2), true, &e);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(m, "records")), 1);
    assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(
        cJSON_GetObjectItem(m, "records"), 0), "timing"), "median_ms")->valuedouble == 1);
    cJSON_Delete(m);

    /* forced, a file of no known tool (no "tool" at all: a fuzzer's find,
     * where the name leaked and the merged file had no "tool") gives a file
     * of convt-bench's that merges again without force */
    cJSON *bare = cJSON_CreateObject();
    cJSON_AddArrayToObject(bare, "records");
    m = merge2(bare, cJSON_Duplicate(bare, true), true, &e);
    assert_non_null(m);
    assert_string_equal(cJSON_GetObjectItem(m, "tool")->valuestring, "convt-bench");
    const cJSON *again[] = {m};
    const char *again_path[] = {"m.json"};
    cJSON *mm = convt_merge(again, again_path, 1, false, NULL, &e);
    assert_non_null(mm);
    cJSON_Delete(mm);
    cJSON_Delete(m);

    /* a driver that differs is a warning, not a refusal */
    cJSON *a = doc("convt-bench", "H100", "a", 1), *b = doc("convt-bench", "H100", "b", 1);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(a, "device"), "driver_version", 13000);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(b, "device"), "driver_version", 12080);
    m = merge2(a, b, false, &e);
    assert_non_null(m);
    cJSON_Delete(m);
}

static void write_doc(const char *path, cJSON *d)
{
    char *t = cJSON_Print(d);
    write_file(path, t);
    free(t);
    cJSON_Delete(d);
}

static void the_binary_writes_and_never_overwrites_an_input(void **state)
{
    (void)state;
    char dir[256], a[512], b[512], out[512], sel[512], args[2048];
    temp_dir(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(out, sizeof out, "%s/m.json", dir);
    snprintf(sel, sizeof sel, "%s/m.selection.json", dir);
    write_doc(a, doc("convt-bench", "H100", "mine", 1.0));
    write_doc(b, doc("convt-bench torch_baseline", "H100", "torch_tf32", 3.0));
    char *o;
    snprintf(args, sizeof args, "merge %s %s --out %s", a, b, out);
    assert_int_equal(run_bench(args, &o), 0);
    assert_non_null(strstr(o, "merged 2 files, 2 records"));
    assert_non_null(strstr(o, "torch_tf32"));
    assert_non_null(strstr(o, "3.00x"));
    free(o);
    cJSON *s = read_json(sel);
    assert_non_null(s);
    cJSON_Delete(s);
    /* select rebuilds the same table from the merged file */
    snprintf(args, sizeof args, "select %s", out);
    assert_int_equal(run_bench(args, &o), 0);
    assert_non_null(strstr(o, "3.00x"));
    free(o);
    snprintf(args, sizeof args, "merge %s %s --out %s", a, b, a);
    assert_int_equal(run_bench(args, &o), 2);
    assert_non_null(strstr(o, "merge never overwrites its inputs"));
    free(o);
    char *text = read_file(a); /* untouched */
    assert_non_null(strstr(text, "\"mine\""));
    free(text);
    snprintf(args, sizeof args, "select %s --out %s", out, out);
    assert_int_equal(run_bench(args, &o), 2);
    free(o);
    snprintf(args, sizeof args, "merge %s --out ''", a);
    assert_int_equal(run_bench(args, &o), 2);
    free(o);
    snprintf(args, sizeof args, "merge %s %s/none.json --out %s/x.json", a, dir, dir);
    assert_int_equal(run_bench(args, &o), 2);
    assert_non_null(strstr(o, "none.json: cannot open"));
    free(o);
}

/* The committed example: PyTorch's baseline and convt-bench's run of the
 * same small config on one H100, from one call of tools/gpu-run.sh. */
static void pytorch_baseline_example_merges(void **state)
{
    (void)state;
    char torch[512], ours[512];
    source_path("tests/data/torch-baseline-example.json", torch, sizeof torch);
    source_path("tests/data/convt-bench-example.json", ours, sizeof ours);
    if (access(torch, R_OK) || access(ours, R_OK)) {
        print_message("no committed example pair under tests/data/: skipped\n");
        skip();
    }
    cJSON *t = read_json(torch), *c = read_json(ours);
    assert_non_null(t);
    assert_non_null(c);
    assert_string_equal(cJSON_GetObjectItem(t, "tool")->valuestring, "convt-bench torch_baseline");
    /* written on the H100 by schema 2; merge reads every schema up to its own */
    assert_true(cJSON_GetObjectItem(t, "schema")->valuedouble <= CONVT_RESULTS_SCHEMA);
    const cJSON *docs[] = {c, t};
    const char *paths[] = {ours, torch};
    convt_err e = {{0}};
    cJSON *m = convt_merge(docs, paths, 2, false, NULL, &e);
    assert_non_null(m);
    /* every record of PyTorch's file is one of its three variants, of a
     * shape the convt-bench run has too */
    int torch_records = 0;
    for (const cJSON *r = cJSON_GetObjectItem(t, "records")->child; r; r = r->next) {
        const char *v = cJSON_GetObjectItem(r, "variant")->valuestring;
        assert_true(!strcmp(v, "torch_fp32") || !strcmp(v, "torch_tf32") ||
                    !strcmp(v, "torch_tf32_benchmark"));
        const char *key = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "shape"), "key")->valuestring;
        bool found = false;
        for (const cJSON *q = cJSON_GetObjectItem(c, "records")->child; q && !found; q = q->next)
            found = !strcmp(cJSON_GetObjectItem(cJSON_GetObjectItem(q, "shape"), "key")->valuestring,
                            key);
        assert_true(found);
        torch_records++;
    }
    assert_true(torch_records > 0 && torch_records % 3 == 0);
    /* the selection: never a torch_* winner; every row with a vendor
     * record names it, and its speedup is the ratio of the two medians */
    cJSON *sel = convt_select(m, NULL);
    int rows = 0;
    for (const cJSON *r = cJSON_GetObjectItem(sel, "selections")->child; r; r = r->next) {
        const cJSON *v = cJSON_GetObjectItem(r, "variant");
        if (cJSON_IsString(v))
            assert_true(strncmp(v->valuestring, "torch_", 6) != 0);
        const cJSON *b = cJSON_GetObjectItem(r, "baseline");
        if (b && cJSON_IsString(v)) {
            assert_true(convt_is_vendor_variant(cJSON_GetObjectItem(b, "variant")->valuestring));
            double s = cJSON_GetObjectItem(r, "speedup")->valuedouble;
            assert_true(fabs(s - cJSON_GetObjectItem(b, "median_ms")->valuedouble /
                                     cJSON_GetObjectItem(r, "median_ms")->valuedouble) < 1e-12);
            rows++;
        }
    }
    assert_true(rows > 0);
    cJSON_Delete(sel);
    cJSON_Delete(m);
    cJSON_Delete(t);
    cJSON_Delete(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_device_merges_with_its_sources),
        cmocka_unit_test(other_devices_tools_and_duplicates_are_refused),
        cmocka_unit_test(the_binary_writes_and_never_overwrites_an_input),
        cmocka_unit_test(pytorch_baseline_example_merges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
