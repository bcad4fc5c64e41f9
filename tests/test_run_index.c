/* The run index (src/tool/run_index.h) against the scan it replaced: on
 * 20,000 random records, many of them running the same thing, every find
 * returns what a scan of the records in their order returns (the first
 * record of that run), across the index's growth; records that differ in
 * any one of the four fields are different runs, also where two fields'
 * strings only split differently. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_access.h"
#include "run_index.h"

static cJSON *record(const char *key, const char *variant, const char *launch, const char *tier)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "shape"), "key", key);
    cJSON_AddStringToObject(r, "variant", variant);
    cJSON_AddStringToObject(r, "launch_key", launch);
    cJSON_AddStringToObject(r, "tier", tier);
    return r;
}

static const cJSON *scan(const cJSON *records, const cJSON *r)
{
    for (const cJSON *q = records->child; q; q = q->next)
        if (json_same_run(q, r))
            return q;
    return NULL;
}

static void finds_what_a_scan_finds(void **state)
{
    (void)state;
    enum { N = 20000 };
    cJSON *records = cJSON_CreateArray();
    srand(41);
    char key[32], variant[32], launch[32];
    for (int i = 0; i < N; i++) {
        /* few enough values that about a third of the records repeat a run */
        snprintf(key, sizeof key, "shape%d", rand() % 400);
        snprintf(variant, sizeof variant, "v%d", rand() % 6);
        snprintf(launch, sizeof launch, "bk=%d", 8 << (rand() % 3));
        cJSON *r = record(key, variant, launch, rand() % 2 ? "tf32" : "fp32");
        cJSON_AddNumberToObject(r, "index", i);
        cJSON_AddItemToArray(records, r);
    }
    /* added one at a time (the index grows from its least size) */
    convt_run_index ix;
    assert_int_equal(convt_run_index_init(&ix, 0), 0);
    for (const cJSON *r = records->child; r; r = r->next)
        assert_int_equal(convt_run_index_add(&ix, r), 0);
    assert_int_equal(ix.n, N);
    int repeats = 0;
    for (const cJSON *r = records->child; r; r = r->next) {
        const cJSON *want = scan(records, r);
        assert_ptr_equal(convt_run_index_find(&ix, r), want);
        repeats += want != r;
    }
    printf("%d of %d records repeat an earlier record's run\n", repeats, N);
    assert_true(repeats > N / 10);
    /* a run no record ran */
    cJSON *absent = record("shape1", "v1", "bk=64", "tf32");
    assert_null(convt_run_index_find(&ix, absent));
    cJSON_Delete(absent);
    convt_run_index_free(&ix);
    /* built from the array at once: the same answers */
    assert_int_equal(convt_run_index_of(&ix, records), 0);
    for (const cJSON *r = records->child; r; r = r->next)
        assert_ptr_equal(convt_run_index_find(&ix, r), scan(records, r));
    convt_run_index_free(&ix);
    cJSON_Delete(records);
}

static void each_field_separates_runs(void **state)
{
    (void)state;
    cJSON *records = cJSON_CreateArray();
    cJSON_AddItemToArray(records, record("ab", "c", "x", "tf32"));
    convt_run_index ix;
    assert_int_equal(convt_run_index_of(&ix, records), 0);
    const char *other[][4] = {{"a", "bc", "x", "tf32"}, {"ab", "c", "x", "fp32"},
                              {"ab", "c", "y", "tf32"}, {"ab", "d", "x", "tf32"},
                              {"abc", "", "x", "tf32"}};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        cJSON *r = record(other[i][0], other[i][1], other[i][2], other[i][3]);
        assert_null(convt_run_index_find(&ix, r));
        cJSON_Delete(r);
    }
    cJSON *same = record("ab", "c", "x", "tf32");
    assert_ptr_equal(convt_run_index_find(&ix, same), records->child);
    cJSON_Delete(same);
    /* by the fields, as a selection row names its record */
    assert_ptr_equal(convt_run_index_find_fields(&ix, "ab", "c", "x", "tf32"), records->child);
    assert_null(convt_run_index_find_fields(&ix, "a", "bc", "x", "tf32"));
    convt_run_index_free(&ix);
    /* a zeroed index takes records; NULL is refused */
    convt_run_index z = {0};
    assert_int_equal(convt_run_index_add(&z, records->child), 0);
    assert_ptr_equal(convt_run_index_find(&z, records->child), records->child);
    assert_int_equal(convt_run_index_add(&z, NULL), -1);
    assert_int_equal(z.n, 1);
    convt_run_index_free(&z);
    /* an empty or absent array: nothing found */
    assert_int_equal(convt_run_index_of(&ix, NULL), 0);
    assert_null(convt_run_index_find(&ix, records->child));
    convt_run_index_free(&ix);
    cJSON_Delete(records);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_what_a_scan_finds),
        cmocka_unit_test(each_field_separates_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
