/* A faulting or hanging kernel costs one record, not the sweep: the
 * planted CPU variants of convt-bench-faults (kernels/planted_faults.c)
 * segfault, abort, spin and return NaN beside a good variant on two shapes;
 * the sweep finishes, every good record is ok, each planted one is failed
 * (with the signal's name, or "hung") or wrong, exit status 1. kill -9 of
 * the orchestrator in mid-sweep, then --resume: the same set of records as
 * an uninterrupted run. SIGINT: a valid file marked incomplete, exit 130.
 * A previous results file is kept, never replaced. Shards partition the
 * shapes and merge back into the whole. Several devices (--devices) share
 * one queue and one file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

static const char *faults_bench(void)
{
    const char *b = getenv("CONVT_BENCH_FAULTS");
    return b ? b : "build/convt-bench-faults";
}

/* Starts `bench --config cfg --out out --backend cpu --quiet [extra]` with
 * stdout and stderr into log; returns its pid. */
static pid_t start(const char *bench, const char *cfg, const char *out, const char *extra,
                   const char *log)
{
    pid_t pid = fork();
    if (pid == 0) {
        /* Under AddressSanitizer (.ci/run's sanitizer build) a SIGSEGV is
         * caught and turned into an abort; the planted segfault must reach
         * the orchestrator as the signal it is. */
        char asan[512];
        const char *old = getenv("ASAN_OPTIONS");
        snprintf(asan, sizeof asan, "%s%shandle_segv=0", old ? old : "", old && *old ? ":" : "");
        setenv("ASAN_OPTIONS", asan, 1);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(bench, bench, "--config", cfg, "--out", out, "--backend", "cpu", "--quiet",
              extra, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int finish(pid_t pid)
{
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const cJSON *find(const cJSON *doc, const char *shape, const char *variant)
{
    for (const cJSON *r = cJSON_GetObjectItem(doc, "records")->child; r; r = r->next)
        if (!strcmp(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "shape"), "name")->valuestring,
                    shape) &&
            !strcmp(cJSON_GetObjectItem(r, "variant")->valuestring, variant))
            return r;
    return NULL;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void every_fault_costs_one_record(void **state)
{
    (void)state;
    char dir[256], cfg[512], out[512], log[512];
    temp_dir(dir, sizeof dir);
    snprintf(cfg, sizeof cfg, "%s/faults.json", dir);
    snprintf(out, sizeof out, "%s/r.json", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    write_file(cfg,
               "{\"variants\": [\"cpu_gather\", \"planted_*\"],"
               " \"measure\": {\"warmup\": 1, \"min_samples\": 2, \"max_samples\": 4,"
               "  \"max_time_s\": 0.05, \"rounds\": 2, \"hang_timeout_s\": 2, \"cache\": \"warm\"},"
               " \"shapes\": [{\"name\": \"a\", \"n\": 1, \"cin\": 4, \"cout\": 3, \"in\": [9, 7],"
               "   \"k\": [3, 2], \"stride\": [2, 1], \"bias\": true},"
               "  {\"name\": \"b\", \"n\": 2, \"cin\": 3, \"cout\": 5, \"in\": [17], \"k\": [4],"
               "   \"stride\": [3], \"pad\": [1]},"
               "  {\"name\": \"c\", \"n\": 2, \"cin\": 3, \"cout\": 2, \"in\": [1], \"k\": [4]}]}");
    pid_t pid = start(faults_bench(), cfg, out, NULL, log);
    int rc = finish(pid);
    char *text = read_file(log);
    print_message("%s", text ? text : "");
    free(text);
    assert_int_equal(rc, 1); /* finished, with failed and wrong runs */
    cJSON *doc = read_json(out);
    assert_non_null(doc);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "complete")));
    const char *shapes[] = {"a", "b"};
    for (int s = 0; s < 2; s++) {
        const cJSON *good = find(doc, shapes[s], "cpu_gather");
        assert_non_null(good);
        assert_string_equal(str(good, "status"), "ok");
        const cJSON *seg = find(doc, shapes[s], "planted_segfault");
        assert_string_equal(str(seg, "status"), "failed");
        assert_non_null(strstr(str(seg, "reason"), "SIGSEGV"));
        assert_non_null(strstr(str(seg, "reason"), "validation run")); /* which step */
        const cJSON *ab = find(doc, shapes[s], "planted_abort");
        assert_string_equal(str(ab, "status"), "failed");
        assert_non_null(strstr(str(ab, "reason"), "SIGABRT"));
        const cJSON *spin = find(doc, shapes[s], "planted_spin");
        assert_string_equal(str(spin, "status"), "failed");
        assert_non_null(strstr(str(spin, "reason"), "hung: no progress for 2 s"));
        const cJSON *nan = find(doc, shapes[s], "planted_nan");
        assert_string_equal(str(nan, "status"), "wrong");
    }
    /* a crash's record, made by the orchestrator, says what the worker
     * gave the variant: shape c's input of one position ran at stride 4 */
    const cJSON *seg = find(doc, "c", "planted_segfault");
    assert_string_equal(str(seg, "status"), "failed");
    const cJSON *as = cJSON_GetObjectItem(cJSON_GetObjectItem(seg, "ran_as"), "stride");
    assert_non_null(as);
    assert_int_equal(cJSON_GetArrayItem(as, 0)->valueint, 4);
    assert_null(cJSON_GetObjectItem(find(doc, "a", "planted_segfault"), "ran_as"));
    cJSON_Delete(doc);
}

/* Eight shapes of two good variants: long enough to be killed midway. */
static void write_long_config(const char *path)
{
    char text[4096];
    int at = snprintf(text, sizeof text,
                      "{\"variants\": [\"cpu_gather\", \"cpu_scatter\"],"
                      " \"measure\": {\"warmup\": 1, \"min_samples\": 3, \"max_samples\": 6,"
                      "  \"min_time_s\": 0.15, \"max_time_s\": 0.3, \"rounds\": 2, \"cache\": \"warm\"},"
                      " \"shapes\": [");
    for (int i = 0; i < 8; i++)
        at += snprintf(text + at, sizeof text - (size_t)at,
                       "%s{\"name\": \"s%d\", \"n\": 1, \"cin\": %d, \"cout\": 4, \"in\": [24, 20],"
                       " \"k\": [3, 3], \"stride\": [2, 2]}",
                       i ? ", " : "", i, 2 + i);
    snprintf(text + at, sizeof text - (size_t)at, "]}");
    write_file(path, text);
}

static int count_records(const char *path, char keys[][160], int max)
{
    cJSON *doc = read_json(path);
    if (!doc)
        return -1;
    int n = 0;
    for (const cJSON *r = cJSON_GetObjectItem(doc, "records")->child; r && n < max; r = r->next)
        snprintf(keys[n++], 160, "%s|%s|%s", str(cJSON_GetObjectItem(r, "shape"), "key"),
                 str(r, "variant"), str(r, "status"));
    cJSON_Delete(doc);
    return n;
}

static int cmp_key(const void *a, const void *b) { return strcmp(a, b); }

/* Waits until path exists (the orchestrator's first write). */
static void wait_for(const char *path)
{
    struct stat st;
    for (int i = 0; i < 3000 && stat(path, &st); i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void kill_9_then_resume_gives_the_whole_set(void **state)
{
    (void)state;
    char dir[256], cfg[512], full[512], cut[512], log[512];
    temp_dir(dir, sizeof dir);
    snprintf(cfg, sizeof cfg, "%s/long.json", dir);
    snprintf(full, sizeof full, "%s/full.json", dir);
    snprintf(cut, sizeof cut, "%s/cut.json", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    write_long_config(cfg);
    assert_int_equal(finish(start(faults_bench(), cfg, full, NULL, log)), 0);
    static char a[64][160], b[64][160];
    int na = count_records(full, a, 64);
    assert_int_equal(na, 16);

    pid_t pid = start(faults_bench(), cfg, cut, NULL, log);
    wait_for(cut);
    kill(pid, SIGKILL);
    finish(pid);
    static char part[64][160];
    int kept = count_records(cut, part, 64);
    print_message("killed with %d of 16 records on disk\n", kept);
    assert_true(kept >= 0 && kept < 16);

    /* a resumed run killed early never leaves fewer records than it found
     * (it replaces the file only once it holds all the file had) */
    pid = start(faults_bench(), cfg, cut, "--resume", log);
    struct timespec brief = {0, 300 * 1000 * 1000};
    nanosleep(&brief, NULL);
    kill(pid, SIGKILL);
    finish(pid);
    int kept_again = count_records(cut, part, 64);
    print_message("killed again, %d records on disk\n", kept_again);
    assert_true(kept_again >= kept);

    assert_int_equal(finish(start(faults_bench(), cfg, cut, "--resume", log)), 0);
    int nb = count_records(cut, b, 64);
    assert_int_equal(nb, 16);
    qsort(a, (size_t)na, sizeof a[0], cmp_key);
    qsort(b, (size_t)nb, sizeof b[0], cmp_key);
    for (int i = 0; i < na; i++)
        assert_string_equal(a[i], b[i]);
    cJSON *doc = read_json(cut);
    assert_non_null(cJSON_GetObjectItem(doc, "resumed_from"));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "complete")));
    cJSON_Delete(doc);

    /* --resume of a file made for another config is refused, and says so */
    char other[512];
    snprintf(other, sizeof other, "%s/other.json", dir);
    write_file(other, "{\"variants\": [\"cpu_gather\"], \"shapes\": [{\"n\": 1, \"cin\": 1, "
                      "\"cout\": 1, \"in\": [3], \"k\": [1]}]}");
    assert_int_equal(finish(start(faults_bench(), other, cut, "--resume", log)), 3);
    char *text = read_file(log);
    assert_non_null(strstr(text, "was written for another config"));
    free(text);
}

static void sigint_leaves_a_valid_incomplete_file(void **state)
{
    (void)state;
    char dir[256], cfg[512], out[512], log[512];
    temp_dir(dir, sizeof dir);
    snprintf(cfg, sizeof cfg, "%s/long.json", dir);
    snprintf(out, sizeof out, "%s/r.json", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    write_long_config(cfg);
    pid_t pid = start(faults_bench(), cfg, out, NULL, log);
    wait_for(out);
    kill(pid, SIGINT);
    assert_int_equal(finish(pid), 130);
    cJSON *doc = read_json(out);
    assert_non_null(doc); /* valid JSON */
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "complete")));
    assert_non_null(strstr(str(doc, "incomplete_because"), "SIGINT"));
    cJSON_Delete(doc);
    char *text = read_file(log);
    assert_non_null(strstr(text, "--resume"));
    free(text);
}

static void a_previous_file_is_kept(void **state)
{
    (void)state;
    char dir[256], cfg[512], out[512], log[512], kept[600];
    temp_dir(dir, sizeof dir);
    snprintf(cfg, sizeof cfg, "%s/small.json", dir);
    snprintf(out, sizeof out, "%s/r.json", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    write_file(cfg, "{\"variants\": [\"cpu_gather\"], \"measure\": {\"max_time_s\": 0.05},"
                    " \"shapes\": [{\"n\": 1, \"cin\": 2, \"cout\": 2, \"in\": [5], \"k\": [2]}]}");
    write_file(out, "{\"tool\": \"something the user wrote\"}");
    assert_int_equal(finish(start(faults_bench(), cfg, out, NULL, log)), 0);
    snprintf(kept, sizeof kept, "%s.~1~", out);
    char *text = read_file(kept);
    assert_non_null(text);
    assert_non_null(strstr(text, "something the user wrote"));
    free(text);
}

/* --shard I/N: the shards partition the shapes, and merge joins their
 * results into the same set of records as one run of all. */
static void shards_partition_the_shapes_and_merge_back(void **state)
{
    (void)state;
    char dir[256], cfg[512], full[512], part[3][512], merged[512], log[512], args[2048];
    temp_dir(dir, sizeof dir);
    snprintf(cfg, sizeof cfg, "%s/long.json", dir);
    snprintf(full, sizeof full, "%s/full.json", dir);
    snprintf(merged, sizeof merged, "%s/merged.json", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    write_long_config(cfg);
    assert_int_equal(finish(start(faults_bench(), cfg, full, NULL, log)), 0);
    int total = 0;
    for (int i = 0; i < 3; i++) {
        char shard[16];
        snprintf(part[i], sizeof part[i], "%s/part%d.json", dir, i + 1);
        snprintf(shard, sizeof shard, "--shard=%d/3", i + 1);
        assert_int_equal(finish(start(faults_bench(), cfg, part[i], shard, log)), 0);
        static char keys[64][160];
        total += count_records(part[i], keys, 64);
    }
    assert_int_equal(total, 16); /* every shape in exactly one shard */
    char *out;
    snprintf(args, sizeof args, "merge %s %s %s --out %s", part[0], part[1], part[2], merged);
    assert_int_equal(run_bench(args, &out), 0);
    free(out);
    static char a[64][160], b[64][160];
    int na = count_records(full, a, 64), nb = count_records(merged, b, 64);
    assert_int_equal(na, nb);
    qsort(a, (size_t)na, sizeof a[0], cmp_key);
    qsort(b, (size_t)nb, sizeof b[0], cmp_key);
    for (int i = 0; i < na; i++)
        assert_string_equal(a[i], b[i]);
}

/* --devices: one worker per device, shapes from one queue, one file. The
 * CPU backend presents three devices with CONVT_CPU_DEVICES=3. The long
 * sweep on three devices has the records of the one-device sweep, in the
 * config's order, spread over more than one device; a planted fault costs
 * its own record on whichever device ran it, and the other devices go on;
 * SIGINT stops every device with a valid file; a device the host lacks is
 * refused before anything runs. */
static void several_devices_one_queue_one_file(void **state)
{
    (void)state;
    char dir[256], cfg[512], one[512], three[512], faults[512], log[512];
    temp_dir(dir, sizeof dir);
    snprintf(cfg, sizeof cfg, "%s/long.json", dir);
    snprintf(one, sizeof one, "%s/one.json", dir);
    snprintf(three, sizeof three, "%s/three.json", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    write_long_config(cfg);
    setenv("CONVT_CPU_DEVICES", "3", 1);
    assert_int_equal(finish(start(faults_bench(), cfg, one, NULL, log)), 0);
    assert_int_equal(finish(start(faults_bench(), cfg, three, "--devices=all", log)), 0);
    static char a[64][160], b[64][160];
    int na = count_records(one, a, 64), nb = count_records(three, b, 64);
    assert_int_equal(na, 16);
    assert_int_equal(nb, 16);
    for (int i = 0; i < na; i++) /* the same records, in the same order */
        assert_string_equal(a[i], b[i]);
    cJSON *doc = read_json(three);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "devices")), 3);
    int used[3] = {0};
    for (const cJSON *r = cJSON_GetObjectItem(doc, "records")->child; r; r = r->next) {
        const cJSON *d = cJSON_GetObjectItem(r, "device_index");
        assert_true(cJSON_IsNumber(d) && d->valueint >= 0 && d->valueint < 3);
        used[d->valueint] = 1;
    }
    assert_true(used[0] + used[1] + used[2] >= 2);
    cJSON_Delete(doc);

    snprintf(faults, sizeof faults, "%s/faults.json", dir);
    write_file(faults,
               "{\"variants\": [\"cpu_gather\", \"planted_segfault\", \"planted_spin\"],"
               " \"measure\": {\"warmup\": 1, \"min_samples\": 2, \"max_samples\": 4,"
               "  \"max_time_s\": 0.05, \"rounds\": 2, \"hang_timeout_s\": 2, \"cache\": \"warm\"},"
               " \"shapes\": [{\"name\": \"a\", \"n\": 1, \"cin\": 4, \"cout\": 3, \"in\": [9, 7],"
               "   \"k\": [3, 2], \"stride\": [2, 1]},"
               "  {\"name\": \"b\", \"n\": 2, \"cin\": 3, \"cout\": 5, \"in\": [17], \"k\": [4]},"
               "  {\"name\": \"c\", \"n\": 1, \"cin\": 2, \"cout\": 2, \"in\": [6, 6, 6],"
               "   \"k\": [2, 2, 2], \"stride\": [2, 2, 2]}]}");
    assert_int_equal(finish(start(faults_bench(), faults, three, "--devices=0,2", log)), 1);
    doc = read_json(three);
    const char *shapes[] = {"a", "b", "c"};
    for (int s = 0; s < 3; s++) {
        assert_string_equal(str(find(doc, shapes[s], "cpu_gather"), "status"), "ok");
        const cJSON *seg = find(doc, shapes[s], "planted_segfault");
        assert_non_null(strstr(str(seg, "reason"), "SIGSEGV"));
        const cJSON *spin = find(doc, shapes[s], "planted_spin");
        assert_non_null(strstr(str(spin, "reason"), "hung"));
    }
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "records")), 9);
    cJSON_Delete(doc);

    char cut[512];
    snprintf(cut, sizeof cut, "%s/cut.json", dir);
    pid_t pid = start(faults_bench(), cfg, cut, "--devices=all", log);
    wait_for(cut);
    kill(pid, SIGINT);
    assert_int_equal(finish(pid), 130);
    doc = read_json(cut);
    assert_non_null(doc);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "complete")));
    cJSON_Delete(doc);

    assert_int_equal(finish(start(faults_bench(), cfg, three, "--devices=0,5", log)), 3);
    char *text = read_file(log);
    assert_non_null(strstr(text, "there is no device 5"));
    free(text);
    assert_int_equal(finish(start(faults_bench(), cfg, three, "--devices=1,1", log)), 2);
    unsetenv("CONVT_CPU_DEVICES");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_fault_costs_one_record),
        cmocka_unit_test(kill_9_then_resume_gives_the_whole_set),
        cmocka_unit_test(sigint_leaves_a_valid_incomplete_file),
        cmocka_unit_test(a_previous_file_is_kept),
        cmocka_unit_test(shards_partition_the_shapes_and_merge_back),
        cmocka_unit_test(several_devices_one_queue_one_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
