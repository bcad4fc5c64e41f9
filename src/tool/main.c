/* convt-bench: find the fastest correct transposed convolution for each shape.
 * The command line; everything else lives in the modules it calls. */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "compare.h"
#include "compare_best.h"
#include "build_config.h"
#include "driver.h"
#include "variant_set.h"
#include "merge.h"
#include "results.h"
#include "select.h"
#include "device_list.h"
#include "shard.h"
#include "sweep_config.h"
#include "textfile.h"
#include "version.h"

enum exit_code {
    EXIT_ALL_OK = 0,      /* every run ok or skipped */
    EXIT_RUN_PROBLEM = 1, /* the sweep finished, and some run failed or was wrong */
    EXIT_USAGE = 2,       /* bad command line or config: nothing ran */
    EXIT_FATAL = 3        /* the sweep could not run or finish */
};

static void usage(FILE *f)
{
    fprintf(f,
"usage: convt-bench --config FILE [options]\n"
"       convt-bench --list\n"
"       convt-bench compare BASELINE.json CURRENT.json [--threshold PCT]\n"
"                           [--markdown] [--strict] [--fail-on-ambiguous]\n"
"       convt-bench compare --best BASELINE.json CURRENT.json [--markdown]\n"
"       convt-bench merge A.json B.json ... --out MERGED.json [--force]\n"
"                         [--previous-selection SEL.json] [--markdown]\n"
"       convt-bench select RESULTS.json [--out SEL.json]\n"
"                          [--previous-selection SEL.json] [--markdown]\n"
"\n"
"Sweeps the shapes of a JSON config over every selected variant and launch\n"
"configuration; validates each run against a float64 reference, times it,\n"
"writes all records to a results JSON and the fastest valid variant per shape\n"
"and precision tier to a selection table.\n"
"\n"
"options:\n"
"  -c, --config FILE   the sweep file (see README.md, \"Sweep files\")\n"
"  -o, --out FILE      results file, overriding the config's \"output\"; the\n"
"                      selection table goes beside it (FILE.selection.json)\n"
"  -b, --backend NAME  auto (default: CUDA when a GPU is usable, else the CPU),\n"
"                      cpu or cuda; overrides the config's \"backend\"\n"
"  -s, --seed N        seed of every input (overrides the config's \"seed\")\n"
"  -n, --dry-run       print the plan: every (shape, variant, launch), with the\n"
"                      reason of each skip; runs nothing\n"
"  -d, --dump DIR      write inputs, weights, bias, reference and every run's\n"
"                      output as .npy files under DIR/<shape name>/\n"
"  -l, --list          list the variants: backend, tier, knobs and their defaults\n"
"  -q, --quiet         no progress lines on stderr\n"
"      --plugin FILE.so  load the variants of a plugin (a shared object built\n"
"                      against convt/variant.h; repeatable): they are\n"
"                      validated, timed and selected like the built-in ones,\n"
"                      in the worker processes (a crash costs one record)\n"
"      --devices LIST  run on these devices of the host (0,1,3 or all): one\n"
"                      worker each, shapes from one queue, one results file;\n"
"                      every device must be the same model (default: 0)\n"
"      --shard I/N     run only shard I of N: the shapes whose key hashes to it\n"
"                      (stable; join the shards' results with merge)\n"
"      --resume        continue the results file (--out or the config's\n"
"                      \"output\") of an interrupted run of the same config\n"
"                      on the same device: only the runs it lacks are made\n"
"      --previous-selection FILE\n"
"                      an earlier selection table: among records tied within\n"
"                      their noise, its choice is kept (see \"selection\")\n"
"  -h, --help          this text\n"
"  -V, --version       version, git revision, and what this binary was built with\n"
"\n"
"selection (the table written beside the results, and by merge and select):\n"
"per shape and tier, the fastest valid record of that tier or of a stricter\n"
"one (fp32 runs compete in tf32, never the reverse); PyTorch's records\n"
"(torch_*) are a baseline, never selected. Records whose medians are within\n"
"the noise both recorded of the fastest are tied; among them the pick is:\n"
"deterministic first, then the previous table's choice, then the cheaper\n"
"prepare, then the name; a launch stopped by measure.prune (status pruned)\n"
"is never picked. \"speedup\" is over the fastest vendor record\n"
"(cudnn_* or torch_*) of the tier or a stricter one, named in the table.\n"
"\n"
"compare: matches records by shape, variant, launch and tier; a bootstrap\n"
"interval (95%%) of the ratio of medians, from the raw samples, gives each\n"
"pair a verdict against PCT (default 5): slower (the whole interval above\n"
"1 + PCT), faster, same (inside 1 +- PCT) or ambiguous. A record that turned\n"
"wrong or failed regresses too; each run's winners are judged the same way.\n"
"Exit 0: no regression; 1: something slower, wrong or failed (or ambiguous,\n"
"with --fail-on-ambiguous); 2: unreadable input, or different devices or\n"
"toolkits with --strict (otherwise a warning). With --best, no verdicts: per\n"
"(shape, variant, tier) in both runs, the fastest ok launch on each side and\n"
"the ratio current / baseline, then each variant's geometric mean of them\n"
"(what a kernel change did to each variant at its best); exit 0, or 1 when\n"
"no (shape, variant, tier) is ok in both.\n"
"\n"
"merge: joins results files of one device (convt-bench runs, shards, and\n"
"tools/torch_baseline.py's PyTorch baseline) into one and writes its\n"
"selection beside it; refuses other devices, backends, tools, or a record\n"
"present in two files, unless --force. Exit 0, 2 (refused), 3 (not written).\n"
"\n"
"exit status:\n"
"  0  every run passed validation (or was skipped, with its reason recorded)\n"
"  1  the sweep finished, but some run failed (an error, a crash or a hang past\n"
"     measure.hang_timeout_s: each costs its run, recorded with the cause) or\n"
"     gave a wrong result\n"
"  2  bad command line or config file: nothing ran\n"
"  3  the sweep could not run or finish (no backend, results not writable, no\n"
"     worker could start, --resume of another config or device)\n"
"  130, 143  stopped by SIGINT, SIGTERM: the results file holds every finished\n"
"     record, marked incomplete; the last line says how to --resume\n"
"\n"
"The work runs in worker processes (README, \"Worker processes\"); an\n"
"existing results file is kept as FILE.~N~, never replaced.\n"
"\n"
"examples:\n"
"  convt-bench --config configs/sweep.json\n"
"  convt-bench --config configs/kernelbench-l1.json --out results/h100.json\n"
"  convt-bench --config configs/sweep.json --dry-run\n"
"  convt-bench compare --markdown results/baseline.json results/today.json\n"
"  convt-bench merge results/kb.json results/kb-torch.json --out results/kb-all.json\n");
}

static void list_variants(void)
{
    /* the name column as wide as the longest name (plugins' included) */
    int w = (int)strlen("variant");
    for (const convt_variant *const *v = convt_tool_variants(); *v; v++)
        w = (int)strlen((*v)->name) > w ? (int)strlen((*v)->name) : w;
    printf("%-*s %-7s %-5s %-13s %s\n", w, "variant", "backend", "tier", "deterministic", "idea");
    for (const convt_variant *const *v = convt_tool_variants(); *v; v++) {
        printf("%-*s %-7s %-5s %-13s %s\n", w, (*v)->name, convt_backend_kind_name((*v)->backend),
               convt_tier_name((*v)->tier), (*v)->deterministic ? "yes" : "no", (*v)->summary);
        for (int k = 0; k < (*v)->n_knobs; k++) {
            const convt_knob *kn = &(*v)->knobs[k];
            printf("%-*s   knob %-10s default [", w, "", kn->name);
            for (int i = 0; i < kn->n_defaults; i++)
                printf("%s%lld", i ? ", " : "", (long long)kn->defaults[i]);
            printf("]  %s\n", kn->help);
        }
    }
}

static void version(void)
{
    printf("convt-bench %s (git %s)\n", CONVT_VERSION, CONVT_GIT_REVISION);
    printf("built with: CUDA %s, cuDNN %s, NVTX %s, OpenMP %s\n", CONVT_HAVE_CUDA ? "yes" : "no",
           CONVT_HAVE_CUDNN ? "yes" : "no", CONVT_HAVE_NVTX ? "yes" : "no",
#ifdef _OPENMP
           "yes"
#else
           "no"
#endif
    );
}

/* Picks the backend: the requested one, or CUDA when a device answers. */
static const convt_backend *open_backend(convt_backend_request want, int device,
                                         convt_device_info *dev, bool quiet)
{
    convt_err e = {{0}};
#if CONVT_HAVE_CUDA
    if (want != CONVT_WANT_CPU) {
        if (convt_backend_cuda.init(device, dev, &e) == 0)
            return &convt_backend_cuda;
        if (want == CONVT_WANT_CUDA) {
            fprintf(stderr, "convt-bench: the cuda backend was requested, but %s\n", e.msg);
            return NULL;
        }
        /* device 1 of a host where CUDA fails is no reason to use the CPU */
        if (device != 0) {
            fprintf(stderr, "convt-bench: device %d: %s (the CPU backend is device 0 only)\n",
                    device, e.msg);
            return NULL;
        }
        if (!quiet)
            fprintf(stderr, "convt-bench: %s; running on the CPU backend\n", e.msg);
    }
#else
    if (want == CONVT_WANT_CUDA) {
        fprintf(stderr, "convt-bench: the cuda backend was requested, but this binary was "
                        "built without CUDA\n");
        return NULL;
    }
    if (want == CONVT_WANT_AUTO && !quiet)
        fprintf(stderr, "convt-bench: built without CUDA; running on the CPU backend\n");
#endif
    if (convt_backend_cpu.init(device, dev, &e)) {
        fprintf(stderr, "convt-bench: the CPU backend failed to start: %s\n", e.msg);
        return NULL;
    }
    return &convt_backend_cpu;
}

static char *replace_string(char *old, const char *value)
{
    free(old);
    size_t n = strlen(value) + 1;
    char *s = malloc(n);
    if (s)
        memcpy(s, value, n);
    return s;
}

/* A JSON document holding the array `array` ("records" for results files,
 * "selections" for selection tables), or NULL after a message naming cmd. */
static cJSON *read_document(const char *cmd, const char *path, const char *array)
{
    convt_err e = {{0}};
    char *text = convt_read_text_file(path, &e);
    if (!text) {
        fprintf(stderr, "convt-bench %s: %s\n", cmd, e.msg);
        return NULL;
    }
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, array))) {
        fprintf(stderr, "convt-bench %s: %s: not a convt-bench %s file (%s)\n", cmd, path,
                strcmp(array, "records") ? "selection" : "results",
                doc ? (strcmp(array, "records") ? "no \"selections\" array" : "no \"records\" array")
                    : "not valid JSON");
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

static cJSON *read_results(const char *path)
{
    return read_document("compare", path, "records");
}

/* Whether the results document at path was interrupted (complete: false),
 * said on stdout with what the reader should make of it. */
static bool say_if_incomplete(const cJSON *doc, const char *path, const char *meaning)
{
    if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(doc, "complete")))
        return false;
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(doc, "incomplete_because");
    printf("compare: %s is incomplete (%s): %s\n", path,
           cJSON_IsString(why) ? why->valuestring : "interrupted", meaning);
    return true;
}

/* compare --best (compare_best.h): a report, not a check. */
static int compare_best_main(cJSON *base, cJSON *cur, bool md, char **paths)
{
    convt_compare_best_summary sum;
    const int rc = convt_compare_best(base, cur, md, stdout, &sum);
    say_if_incomplete(base, paths[0], "its best launches are among those it finished");
    say_if_incomplete(cur, paths[1], "its best launches are among those it finished");
    cJSON_Delete(base);
    cJSON_Delete(cur);
    if (rc) {
        fprintf(stderr, "convt-bench compare: out of memory\n");
        return EXIT_FATAL;
    }
    return sum.pairs ? EXIT_ALL_OK : EXIT_RUN_PROBLEM;
}

static int compare_main(int argc, char **argv)
{
    static const struct option longopts[] = {{"threshold", required_argument, NULL, 't'},
                                             {"markdown", no_argument, NULL, 'm'},
                                             {"strict", no_argument, NULL, 's'},
                                             {"fail-on-ambiguous", no_argument, NULL, 'a'},
                                             {"best", no_argument, NULL, 'b'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    convt_compare_options opt = {.threshold = 0.05};
    bool best = false, judging = false; /* judging: an option that only verdicts use */
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "t:msabh", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 't':
            opt.threshold = strtod(optarg, &end) / 100.0;
            if (!*optarg || *end || !(opt.threshold >= 0)) {
                fprintf(stderr, "convt-bench compare: --threshold: expected a percentage >= 0, "
                                "got '%s'\n", optarg);
                return EXIT_USAGE;
            }
            judging = true;
            break;
        case 'm': opt.markdown = true; break;
        case 's': opt.strict = true, judging = true; break;
        case 'a': opt.fail_on_ambiguous = true, judging = true; break;
        case 'b': best = true; break;
        case 'h': usage(stdout); return EXIT_ALL_OK;
        default: return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "convt-bench compare: expected BASELINE.json CURRENT.json; try "
                        "'convt-bench --help'\n");
        return EXIT_USAGE;
    }
    if (best && judging) {
        fprintf(stderr, "convt-bench compare: --best gives no verdicts: it takes --markdown "
                        "only, not --threshold, --strict or --fail-on-ambiguous\n");
        return EXIT_USAGE;
    }
    cJSON *base = read_results(argv[optind]), *cur = base ? read_results(argv[optind + 1]) : NULL;
    if (!base || !cur) {
        cJSON_Delete(base);
        return EXIT_USAGE;
    }
    if (best)
        return compare_best_main(base, cur, opt.markdown, argv + optind);
    convt_compare_summary sum;
    int rc = convt_compare(base, cur, &opt, stdout, &sum);
    /* an interrupted run, or two runs with nothing in common, say nothing
     * about a regression: a check must not pass on them */
    bool partial = false;
    for (int i = 0; i < 2; i++)
        partial |= say_if_incomplete(i ? cur : base, argv[optind + i], "not a whole run");
    cJSON_Delete(base);
    cJSON_Delete(cur);
    if (rc)
        return EXIT_USAGE;
    if (sum.matched == 0) {
        printf("compare: no record of the current run matches one of the baseline\n");
        return EXIT_RUN_PROBLEM;
    }
    if (partial)
        return EXIT_RUN_PROBLEM;
    bool ambiguous = opt.fail_on_ambiguous && (sum.ambiguous || sum.winners_ambiguous);
    return sum.regressed || sum.turned_bad || sum.winners_regressed || ambiguous
               ? EXIT_RUN_PROBLEM
               : EXIT_ALL_OK;
}

/* True when a and b name the same file (or the same path when one does
 * not exist yet). */
static bool same_file(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    if (realpath(a, ra) && realpath(b, rb))
        return !strcmp(ra, rb);
    return !strcmp(a, b);
}

/* Writes a selection of doc (previous breaks ties) to sel_path when given,
 * prints it; returns an exit code. */
static int select_and_print(const char *cmd, const cJSON *doc, const cJSON *previous,
                            const char *sel_path, bool markdown)
{
    cJSON *sel = convt_select(doc, previous);
    convt_err e = {{0}};
    int rc = EXIT_ALL_OK;
    if (sel_path && convt_results_write(sel, sel_path, &e)) {
        fprintf(stderr, "convt-bench %s: %s\n", cmd, e.msg);
        rc = EXIT_FATAL;
    }
    convt_selection_print(sel, markdown, stdout);
    if (sel_path && rc == EXIT_ALL_OK)
        printf("\nselection: %s\n", sel_path);
    cJSON_Delete(sel);
    return rc;
}

/* merge and select share their options. */
typedef struct table_options {
    const char *out, *previous;
    bool force, markdown;
} table_options;

static int table_options_parse(const char *cmd, int argc, char **argv, table_options *t)
{
    static const struct option longopts[] = {{"out", required_argument, NULL, 'o'},
                                             {"previous-selection", required_argument, NULL, 'p'},
                                             {"force", no_argument, NULL, 'f'},
                                             {"markdown", no_argument, NULL, 'm'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(t, 0, sizeof *t);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:p:fmh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': t->out = optarg; break;
        case 'p': t->previous = optarg; break;
        case 'f':
            if (strcmp(cmd, "merge")) {
                fprintf(stderr, "convt-bench %s: --force is an option of merge\n", cmd);
                return -1;
            }
            t->force = true;
            break;
        case 'm': t->markdown = true; break;
        case 'h': usage(stdout); exit(EXIT_ALL_OK);
        default: return -1;
        }
    }
    if (t->out && !t->out[0]) {
        fprintf(stderr, "convt-bench %s: --out: an empty path\n", cmd);
        return -1;
    }
    return 0;
}

static int select_main(int argc, char **argv)
{
    table_options t;
    if (table_options_parse("select", argc, argv, &t))
        return EXIT_USAGE;
    if (argc - optind != 1) {
        fprintf(stderr, "convt-bench select: expected one RESULTS.json; try 'convt-bench --help'\n");
        return EXIT_USAGE;
    }
    const char *in = argv[optind];
    if (t.out && same_file(t.out, in)) {
        fprintf(stderr, "convt-bench select: --out %s is the results file itself; it would be "
                        "replaced by its selection\n", t.out);
        return EXIT_USAGE;
    }
    cJSON *doc = read_document("select", in, "records");
    cJSON *prev = doc && t.previous ? read_document("select", t.previous, "selections") : NULL;
    if (!doc || (t.previous && !prev)) {
        cJSON_Delete(doc);
        return EXIT_USAGE;
    }
    int rc = select_and_print("select", doc, prev, t.out, t.markdown);
    cJSON_Delete(doc);
    cJSON_Delete(prev);
    return rc;
}

static int merge_main(int argc, char **argv)
{
    table_options t;
    if (table_options_parse("merge", argc, argv, &t))
        return EXIT_USAGE;
    int n = argc - optind;
    if (n < 1 || !t.out) {
        fprintf(stderr, "convt-bench merge: expected A.json [B.json ...] --out MERGED.json; try "
                        "'convt-bench --help'\n");
        return EXIT_USAGE;
    }
    char *sel_path = convt_selection_path(t.out);
    for (int i = 0; i < n; i++)
        if (same_file(t.out, argv[optind + i]) || same_file(sel_path, argv[optind + i])) {
            fprintf(stderr, "convt-bench merge: --out %s (or its selection %s) is the input %s; "
                            "merge never overwrites its inputs\n",
                    t.out, sel_path, argv[optind + i]);
            free(sel_path);
            return EXIT_USAGE;
        }
    cJSON **docs = calloc((size_t)n, sizeof *docs);
    int rc = EXIT_USAGE;
    cJSON *prev = NULL, *merged = NULL;
    if (!docs)
        goto out;
    for (int i = 0; i < n; i++)
        if (!(docs[i] = read_document("merge", argv[optind + i], "records")))
            goto out;
    if (t.previous && !(prev = read_document("merge", t.previous, "selections")))
        goto out;
    convt_err e = {{0}};
    merged = convt_merge((const cJSON *const *)docs, (const char *const *)(argv + optind), n,
                         t.force, stderr, &e);
    if (!merged) {
        fprintf(stderr, "convt-bench merge: %s\n", e.msg);
        goto out;
    }
    if (convt_results_write(merged, t.out, &e)) {
        fprintf(stderr, "convt-bench merge: %s\n", e.msg);
        rc = EXIT_FATAL;
        goto out;
    }
    printf("merged %d file%s, %d records: %s\n\n", n, n == 1 ? "" : "s",
           cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(merged, "records")), t.out);
    rc = select_and_print("merge", merged, prev, sel_path, t.markdown);
out:
    for (int i = 0; docs && i < n; i++)
        cJSON_Delete(docs[i]);
    free(docs);
    cJSON_Delete(prev);
    cJSON_Delete(merged);
    free(sel_path);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "compare"))
        return compare_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "merge"))
        return merge_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "select"))
        return select_main(argc - 1, argv + 1);
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'}, {"out", required_argument, NULL, 'o'},
        {"backend", required_argument, NULL, 'b'}, {"seed", required_argument, NULL, 's'},
        {"dry-run", no_argument, NULL, 'n'},       {"dump", required_argument, NULL, 'd'},
        {"list", no_argument, NULL, 'l'},          {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},          {"version", no_argument, NULL, 'V'},
        {"previous-selection", required_argument, NULL, 'P'},
        {"resume", no_argument, NULL, 'R'},
        {"shard", required_argument, NULL, 'S'},
        {"devices", required_argument, NULL, 'D'},
        {"plugin", required_argument, NULL, 'U'},
        /* hidden: the orchestrator starts workers with these (driver.h) */
        {"worker", no_argument, NULL, 'W'},
        {"device", required_argument, NULL, 'I'},
        {NULL, 0, NULL, 0}};
    const char *config_path = NULL, *out = NULL, *backend = NULL, *seed = NULL,
               *previous = NULL;
    convt_run_options opt = {0};
    bool dry_run = false, worker = false;
    convt_err e = {{0}};
    int c;
    while ((c = getopt_long(argc, argv, "c:o:b:s:nd:lqhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': config_path = optarg; break;
        case 'o': out = optarg; break;
        case 'b': backend = optarg; break;
        case 's': seed = optarg; break;
        case 'n': dry_run = true; break;
        case 'd': opt.dump_dir = optarg; break;
        case 'q': opt.quiet = true; break;
        case 'l': list_variants(); return EXIT_ALL_OK;
        case 'h': usage(stdout); return EXIT_ALL_OK;
        case 'V': version(); return EXIT_ALL_OK;
        case 'P': previous = optarg; break;
        case 'R': opt.resume = true; break;
        case 'S': opt.shard = optarg; break;
        case 'W': worker = true; break;
        case 'D':
            if (convt_device_list_parse(optarg, &opt.devices, &e)) {
                fprintf(stderr, "convt-bench: %s\n", e.msg);
                return EXIT_USAGE;
            }
            break;
        case 'I': opt.worker_device = atoi(optarg); break;
        case 'U':
            /* loaded now: the config may name its variants */
            if (convt_tool_load_plugin(optarg, &e)) {
                fprintf(stderr, "convt-bench: %s\n", e.msg);
                return EXIT_USAGE;
            }
            break;
        default:
            fprintf(stderr, "convt-bench: try 'convt-bench --help'\n");
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "convt-bench: unexpected argument '%s'; try 'convt-bench --help'\n",
                argv[optind]);
        return EXIT_USAGE;
    }
    if (!config_path) {
        fprintf(stderr, "convt-bench: no --config given\n\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    if (out && !out[0]) {
        fprintf(stderr, "convt-bench: --out: an empty path; expected a results file name\n");
        return EXIT_USAGE;
    }
    convt_config cfg;
    if (convt_config_load(config_path, &cfg, &e)) {
        fprintf(stderr, "convt-bench: %s\n", e.msg);
        convt_config_finish(&cfg);
        return EXIT_USAGE;
    }
    for (int i = 0; i < cfg.n_notes && !opt.quiet && !worker; i++)
        fprintf(stderr, "convt-bench: %s\n", cfg.notes[i]); /* variants not built here */
    if (backend) {
        if (!strcmp(backend, "auto"))
            cfg.backend = CONVT_WANT_AUTO;
        else if (!strcmp(backend, "cpu"))
            cfg.backend = CONVT_WANT_CPU;
        else if (!strcmp(backend, "cuda"))
            cfg.backend = CONVT_WANT_CUDA;
        else {
            fprintf(stderr, "convt-bench: --backend: expected auto, cpu or cuda, got '%s'\n",
                    backend);
            convt_config_finish(&cfg);
            return EXIT_USAGE;
        }
    }
    if (seed && convt_parse_seed(seed, &cfg.seed)) {
        fprintf(stderr, "convt-bench: --seed: expected an integer in [0, 18446744073709551615] "
                        "in decimal digits (no sign), got '%s'\n", seed);
        convt_config_finish(&cfg);
        return EXIT_USAGE;
    }
    if (opt.shard) {
        int index, count;
        if (convt_shard_parse(opt.shard, &index, &count, &e)) {
            fprintf(stderr, "convt-bench: %s\n", e.msg);
            convt_config_finish(&cfg);
            return EXIT_USAGE;
        }
        convt_shard_apply(&cfg, index, count);
        static char canonical[32]; /* "01/2" and "1/2" are one shard to --resume */
        snprintf(canonical, sizeof canonical, "%d/%d", index, count);
        opt.shard = canonical;
    }
    if (out) {
        cfg.output = replace_string(cfg.output, out);
        free(cfg.selection);
        cfg.selection = convt_selection_path(out);
        if (convt_config_check_outputs(&cfg, &e)) {
            fprintf(stderr, "convt-bench: --out %s: %s\n", out, e.msg);
            convt_config_finish(&cfg);
            return EXIT_USAGE;
        }
    }
    /* Found now, not after the first shape has been measured. */
    if (!dry_run && !worker &&
        (convt_check_writable(cfg.output, &e) || convt_check_writable(cfg.selection, &e))) {
        fprintf(stderr, "convt-bench: results not writable: %s\n", e.msg);
        convt_config_finish(&cfg);
        return EXIT_FATAL;
    }
    cJSON *previous_sel = NULL;
    if (previous) {
        if (!(previous_sel = read_document("--previous-selection", previous, "selections"))) {
            convt_config_finish(&cfg);
            return EXIT_USAGE;
        }
        opt.previous_selection = previous_sel;
    }
    int status;
    if (dry_run || worker) {
        /* the plan needs no worker; a worker owns the device */
        convt_device_info dev;
        const convt_backend *be = open_backend(
            cfg.backend, worker ? opt.worker_device : opt.devices.n ? opt.devices.index[0] : 0,
            &dev, opt.quiet);
        if (!be) {
            cJSON_Delete(previous_sel);
            convt_config_finish(&cfg);
            return EXIT_FATAL;
        }
        if (!opt.quiet)
            fprintf(stderr, "convt-bench %s: %s backend on %s; %d shape%s from %s\n",
                    CONVT_VERSION, be->name, dev.name, cfg.n_shapes, cfg.n_shapes == 1 ? "" : "s",
                    cfg.path);
        if (worker) {
            status = convt_worker_serve(&cfg, be, &dev, &opt);
        } else {
            int runs = convt_plan_print(&cfg, be, &dev, stdout);
            printf("%d run%s planned\n", runs, runs == 1 ? "" : "s");
            status = runs >= 0 ? EXIT_ALL_OK : EXIT_FATAL;
        }
        be->shutdown();
    } else {
        opt.config_path = config_path;
        opt.backend = backend;
        convt_run_summary sum;
        if (convt_run(&cfg, &opt, &sum, &e)) {
            fprintf(stderr, "convt-bench: %s\n", e.msg);
            status = EXIT_FATAL;
        } else if (sum.interrupted) {
            status = 128 + sum.interrupted; /* 130 for SIGINT, 143 for SIGTERM */
        } else {
            char pruned[64] = "";
            if (sum.pruned) /* only where measure.prune is set: the line stays as it was */
                snprintf(pruned, sizeof pruned, ", %d pruned", sum.pruned);
            printf("%d ok, %d skipped, %d failed, %d wrong%s%s\n", sum.ok, sum.skipped, sum.failed,
                   sum.wrong, pruned, sum.resumed ? " (some kept from the resumed file)" : "");
            status = sum.failed || sum.wrong ? EXIT_RUN_PROBLEM : EXIT_ALL_OK;
        }
    }
    cJSON_Delete(previous_sel);
    convt_config_finish(&cfg);
    return status;
}
