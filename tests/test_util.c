#include "test_util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostdevice.h"
#include "problem.h"

void source_path(const char *rel, char *buf, size_t len)
{
    const char *root = getenv("CONVT_SOURCE_ROOT");
    snprintf(buf, len, "%s/%s", root ? root : ".", rel);
}

void temp_dir(char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/convt-test-XXXXXX");
    if (!mkdtemp(buf)) {
        perror("mkdtemp");
        exit(1);
    }
}

void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f)) {
        perror(path);
        exit(1);
    }
}

char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len < 4096)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[len] = 0;
    return buf;
}

cJSON *read_json(const char *path)
{
    char *text = read_file(path);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    return j;
}

int run_bench(const char *args, char **output)
{
    const char *bench = getenv("CONVT_BENCH");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", bench ? bench : "./convt-bench", args);
    FILE *p = popen(cmd, "r");
    if (!p) {
        perror("popen");
        exit(1);
    }
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap);
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 4096)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    int st = pclose(p);
    *output = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int64_t out_extent(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil,
                   int64_t out_pad)
{
    convt_problem p = convt_problem_default(1);
    p.in[0] = in, p.k[0] = k, p.stride[0] = stride, p.pad[0] = pad, p.dil[0] = dil;
    p.out_pad[0] = out_pad;
    return convt_out_size(&p, 0);
}

float *random_tensor(int64_t n, uint64_t seed)
{
    float *v = malloc(sizeof *v * (size_t)(n ? n : 1));
    if (!v) {
        fprintf(stderr, "random_tensor: out of memory for %lld floats\n", (long long)n);
        abort();
    }
    for (int64_t i = 0; i < n; i++)
        v[i] = convt_uniform(seed, (uint64_t)i, -1.0f, 1.0f);
    return v;
}

void one_position_inputs(convt_problem *p, unsigned mask)
{
    for (int d = 0; d < p->dims; d++) {
        if (!(mask >> d & 1))
            continue;
        p->in[d] = 1;
        const int64_t reach = convt_kernel_reach(p, d);
        while (p->pad[d] > 0 && 2 * p->pad[d] >= reach + p->out_pad[d])
            p->pad[d]--;
    }
}
