/* A main() for the fuzz targets without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file named on the command line (or
 * every file in a named directory). Lets any compiler (gcc, with or without
 * -Db_sanitize) replay the seed corpora and saved reproducers: the unit test
 * fuzz_seeds in tests/meson.build. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int failed = 0, ran = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            if (!d) {
                perror(argv[i]);
                failed++;
                continue;
            }
            char **names = NULL;
            size_t n = 0;
            struct dirent *de;
            while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                    continue;
                char **more = realloc(names, (n + 1) * sizeof *names);
                if (!more)
                    break;
                names = more;
                size_t len = strlen(argv[i]) + strlen(de->d_name) + 2;
                names[n] = malloc(len);
                if (!names[n])
                    break;
                snprintf(names[n++], len, "%s/%s", argv[i], de->d_name);
            }
            closedir(d);
            qsort(names, n, sizeof *names, cmp);
            for (size_t j = 0; j < n; j++) {
                failed += run_file(names[j]);
                ran++;
                free(names[j]);
            }
            free(names);
        } else {
            failed += run_file(argv[i]);
            ran++;
        }
    }
    printf("%d input%s replayed, %d unreadable\n", ran, ran == 1 ? "" : "s", failed);
    return failed || ran == 0;
}
