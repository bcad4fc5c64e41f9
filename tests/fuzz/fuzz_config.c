/* libFuzzer target: the sweep-file parser (src/tool/sweep_config.h).
 *
 * The input is the text of a config file. Like convt_config_load (whose
 * convt_read_text_file refuses a file with a NUL byte inside), inputs with a
 * NUL byte are not parsed. Every input is parsed with convt_config_parse and
 * freed with convt_config_finish, accepted or not. An accepted config is
 * then read the way the driver's plan reads it (every shape's key, sizes,
 * FLOPs; every variant's wish and knob values), so that values the parser
 * lets through are also exercised where they are used.
 *
 * Built by tests/fuzz/meson.build (-Dfuzz=true, clang) and run by
 * tools/fuzz.sh; tests/fuzz/standalone.c replays files through it without
 * libFuzzer (the unit test fuzz_seeds). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "sweep_config.h"
#include "variant.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double sink;

static void use_config(const convt_config *cfg)
{
    char buf[256];
    for (int i = 0; i < cfg->n_shapes; i++) {
        const convt_problem *p = &cfg->shapes[i];
        if (convt_problem_check(p, buf, sizeof buf))
            continue; /* the parser refuses these; the driver never sees them */
        convt_problem_key(p, buf, sizeof buf);
        double acc = (double)strlen(buf);
        for (int d = 0; d < p->dims; d++)
            acc += (double)convt_out_size(p, d);
        acc += (double)convt_x_elems(p) + (double)convt_w_elems(p) + (double)convt_b_elems(p) +
               (double)convt_y_elems(p) + (double)convt_in_spatial(p) +
               (double)convt_out_spatial(p) + (double)convt_taps(p) + convt_flops(p) +
               convt_min_bytes(p);
        convt_shape3 s3 = convt_problem_as_3d(p);
        acc += (double)s3.out[0] + (double)s3.out[2];
        sink = acc;
    }
    for (const convt_variant *const *v = convt_variants; *v; v++) {
        if (!convt_config_wants(cfg, *v))
            continue;
        for (int k = 0; k < (*v)->n_knobs; k++) {
            const int64_t *values = NULL;
            int n = convt_config_knob_values(cfg, *v, k, &values);
            for (int j = 0; j < n; j++)
                sink = (double)values[j];
        }
    }
    char *sel = convt_selection_path(cfg->output);
    free(sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memchr(data, 0, size))
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    convt_config cfg;
    convt_err e = {{0}};
    if (convt_config_parse(text, "fuzz", &cfg, &e) == 0)
        use_config(&cfg);
    else if (!e.msg[0])
        abort(); /* a failure must always say why */
    convt_config_finish(&cfg);
    free(text);
    return 0;
}
