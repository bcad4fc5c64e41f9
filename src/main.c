/* convt-bench: find the fastest correct transposed convolution for each shape.
 * The command line; everything else lives in the modules it calls. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "compare.h"
#include "build_config.h"
#include "driver.h"
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
"                           [--markdown] [--strict]\n"
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
"  -h, --help          this text\n"
"  -V, --version       version, git revision, and what this binary was built with\n"
"\n"
"compare: matches records by shape, variant, launch and tier; a record\n"
"regresses when its median is slower by more than max(PCT, the noise both runs\n"
"recorded for it), default PCT 5; a record that turned wrong or failed\n"
"regresses too; the best time per shape and tier is compared the same way.\n"
"Exit 0: no regression; 1: some regression; 2: unreadable input, or different\n"
"devices or toolkits with --strict (otherwise a warning).\n"
"\n"
"exit status:\n"
"  0  every run passed validation (or was skipped, with its reason recorded)\n"
"  1  the sweep finished, but some run failed or gave a wrong result\n"
"  2  bad command line or config file: nothing ran\n"
"  3  the sweep could not run or finish (no backend, results not writable, or\n"
"     a device step hung past measure.hang_timeout_s)\n"
"\n"
"examples:\n"
"  convt-bench --config configs/sweep.json\n"
"  convt-bench --config configs/kernelbench-l1.json --out results/h100.json\n"
"  convt-bench --config configs/sweep.json --dry-run\n"
"  convt-bench compare --markdown results/baseline.json results/today.json\n");
}

static void list_variants(void)
{
    printf("%-14s %-7s %-5s %-13s %s\n", "variant", "backend", "tier", "deterministic",
           "idea");
    for (const convt_variant *const *v = convt_variants; *v; v++) {
        printf("%-14s %-7s %-5s %-13s %s\n", (*v)->name, convt_backend_kind_name((*v)->backend),
               convt_tier_name((*v)->tier), (*v)->deterministic ? "yes" : "no", (*v)->summary);
        for (int k = 0; k < (*v)->n_knobs; k++) {
            const convt_knob *kn = &(*v)->knobs[k];
            printf("%-14s   knob %-10s default [", "", kn->name);
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
static const convt_backend *open_backend(convt_backend_request want, convt_device_info *dev,
                                         bool quiet)
{
    convt_err e = {{0}};
#if CONVT_HAVE_CUDA
    if (want != CONVT_WANT_CPU) {
        if (convt_backend_cuda.init(dev, &e) == 0)
            return &convt_backend_cuda;
        if (want == CONVT_WANT_CUDA) {
            fprintf(stderr, "convt-bench: the cuda backend was requested, but %s\n", e.msg);
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
    if (convt_backend_cpu.init(dev, &e)) {
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

static cJSON *read_results(const char *path)
{
    convt_err e = {{0}};
    char *text = convt_read_text_file(path, &e);
    if (!text) {
        fprintf(stderr, "convt-bench compare: %s\n", e.msg);
        return NULL;
    }
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "records"))) {
        fprintf(stderr, "convt-bench compare: %s: not a convt-bench results file (%s)\n", path,
                doc ? "no \"records\" array" : "not valid JSON");
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

static int compare_main(int argc, char **argv)
{
    static const struct option longopts[] = {{"threshold", required_argument, NULL, 't'},
                                             {"markdown", no_argument, NULL, 'm'},
                                             {"strict", no_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    convt_compare_options opt = {.threshold = 0.05};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "t:msh", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 't':
            opt.threshold = strtod(optarg, &end) / 100.0;
            if (!*optarg || *end || !(opt.threshold >= 0)) {
                fprintf(stderr, "convt-bench compare: --threshold: expected a percentage >= 0, "
                                "got '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'm': opt.markdown = true; break;
        case 's': opt.strict = true; break;
        case 'h': usage(stdout); return EXIT_ALL_OK;
        default: return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "convt-bench compare: expected BASELINE.json CURRENT.json; try "
                        "'convt-bench --help'\n");
        return EXIT_USAGE;
    }
    cJSON *base = read_results(argv[optind]), *cur = base ? read_results(argv[optind + 1]) : NULL;
    if (!base || !cur) {
        cJSON_Delete(base);
        return EXIT_USAGE;
    }
    convt_compare_summary sum;
    int rc = convt_compare(base, cur, &opt, stdout, &sum);
    cJSON_Delete(base);
    cJSON_Delete(cur);
    if (rc)
        return EXIT_USAGE;
    return sum.regressed || sum.turned_bad || sum.winners_regressed ? EXIT_RUN_PROBLEM
                                                                    : EXIT_ALL_OK;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "compare"))
        return compare_main(argc - 1, argv + 1);
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'}, {"out", required_argument, NULL, 'o'},
        {"backend", required_argument, NULL, 'b'}, {"seed", required_argument, NULL, 's'},
        {"dry-run", no_argument, NULL, 'n'},       {"dump", required_argument, NULL, 'd'},
        {"list", no_argument, NULL, 'l'},          {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},          {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    const char *config_path = NULL, *out = NULL, *backend = NULL, *seed = NULL;
    convt_run_options opt = {0};
    bool dry_run = false;
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
    convt_config cfg;
    convt_err e = {{0}};
    if (convt_config_load(config_path, &cfg, &e)) {
        fprintf(stderr, "convt-bench: %s\n", e.msg);
        convt_config_finish(&cfg);
        return EXIT_USAGE;
    }
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
    if (seed) {
        char *end;
        unsigned long long v = strtoull(seed, &end, 10);
        if (!*seed || *end) {
            fprintf(stderr, "convt-bench: --seed: expected a non-negative integer, got '%s'\n",
                    seed);
            convt_config_finish(&cfg);
            return EXIT_USAGE;
        }
        cfg.seed = v;
    }
    if (out) {
        cfg.output = replace_string(cfg.output, out);
        free(cfg.selection);
        cfg.selection = convt_selection_path(out);
    }
    convt_device_info dev;
    const convt_backend *be = open_backend(cfg.backend, &dev, opt.quiet);
    if (!be) {
        convt_config_finish(&cfg);
        return EXIT_FATAL;
    }
    if (!opt.quiet)
        fprintf(stderr, "convt-bench %s: %s backend on %s; %d shape%s from %s\n", CONVT_VERSION,
                be->name, dev.name, cfg.n_shapes, cfg.n_shapes == 1 ? "" : "s", cfg.path);
    int status;
    if (dry_run) {
        int runs = convt_plan_print(&cfg, be, &dev, stdout);
        printf("%d run%s planned\n", runs, runs == 1 ? "" : "s");
        status = runs >= 0 ? EXIT_ALL_OK : EXIT_FATAL;
    } else {
        convt_run_summary sum;
        if (convt_run(&cfg, be, &dev, &opt, &sum, &e)) {
            fprintf(stderr, "convt-bench: %s\n", e.msg);
            status = EXIT_FATAL;
        } else {
            printf("%d ok, %d skipped, %d failed, %d wrong\n", sum.ok, sum.skipped, sum.failed,
                   sum.wrong);
            status = sum.failed || sum.wrong ? EXIT_RUN_PROBLEM : EXIT_ALL_OK;
        }
    }
    be->shutdown();
    convt_config_finish(&cfg);
    return status;
}
