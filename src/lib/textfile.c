#include "textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "a directory", "a FIFO (named pipe)", ... for "PATH: is X, not a regular file". */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a plain file";
}

/* Opens path for reading only when it is a regular file of at most
 * max_bytes: a FIFO would block the read forever, /dev/zero would fill the
 * memory, and a directory would only give "read error". */
static FILE *open_regular(const char *path, size_t max_bytes, convt_err *e)
{
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        convt_fail(e, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st)) {
        convt_fail(e, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        convt_fail(e, "%s: is %s, not a regular file; expected a JSON file", path,
                   file_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    if ((unsigned long long)st.st_size > max_bytes) {
        convt_fail(e, "%s: too large (%.1f MiB; at most %zu MiB are read)", path,
                   (double)st.st_size / (1 << 20), max_bytes >> 20);
        close(fd);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        convt_fail(e, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

char *convt_read_text_file_max(const char *path, size_t max_bytes, convt_err *e)
{
    FILE *f = open_regular(path, max_bytes, e);
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len > max_bytes) { /* it grew while being read */
            free(text);
            fclose(f);
            convt_fail(e, "%s: too large (more than %zu MiB)", path, max_bytes >> 20);
            return NULL;
        }
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *grown = realloc(text, cap);
            if (!grown) {
                free(text);
                fclose(f);
                convt_fail(e, "%s: out of memory reading the file", path);
                return NULL;
            }
            text = grown;
        }
        size_t got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    bool read_error = ferror(f);
    int err = errno;
    fclose(f);
    if (read_error) {
        free(text);
        convt_fail(e, "%s: read error: %s", path, strerror(err));
        return NULL;
    }
    text[len] = 0;
    if (strlen(text) != len) {
        free(text);
        convt_fail(e, "%s: the file contains a NUL byte; expected JSON text", path);
        return NULL;
    }
    return text;
}

char *convt_read_text_file(const char *path, convt_err *e)
{
    return convt_read_text_file_max(path, CONVT_RESULTS_MAX_BYTES, e);
}

/* path with its directory resolved (the file itself need not exist), or path
 * as given when the directory does not exist either. */
static void resolve_dir(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (realpath(dir, real))
        snprintf(buf, len, "%s/%s", real, slash ? slash + 1 : path);
    else
        snprintf(buf, len, "%s", path);
}

bool convt_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea || eb)
        return false;
    char ra[PATH_MAX + 256], rb[PATH_MAX + 256];
    resolve_dir(a, ra, sizeof ra);
    resolve_dir(b, rb, sizeof rb);
    return !strcmp(ra, rb);
}

/* mkdir -p of path's directory; e names the directory that could not be made. */
static int make_parents(const char *path, convt_err *e)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return convt_fail(e, "%s: the path is longer than %d bytes", path, PATH_MAX - 1);
    for (char *s = dir + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(dir, 0777) && errno != EEXIST)
            return convt_fail(e, "%s: cannot create its directory %s: %s", path, dir,
                              strerror(errno));
        *s = '/';
    }
    return 0;
}

int convt_check_writable(const char *path, convt_err *e)
{
    if (!path[0])
        return convt_fail(e, "an empty path; expected a file name");
    if (make_parents(path, e))
        return -1;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return convt_fail(e, "%s: is a directory; expected a file name", path);
    /* The results are written to a temporary file beside path and renamed
     * over it, so what matters is that the directory takes a new file. */
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s.probe.%d", path, (int)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return convt_fail(e, "%s: cannot create a file there (%s: %s)", path, probe,
                          strerror(errno));
    close(fd);
    unlink(probe);
    return 0;
}

int convt_write_text_atomic(const char *path, const char *text, convt_err *e)
{
    /* pid and a counter: two threads writing one path never share a file */
    static atomic_uint counter;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d.%u", path, (int)getpid(), atomic_fetch_add(&counter, 1));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return convt_fail(e, "%s: cannot create: %s", tmp, strerror(errno));
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        done += (size_t)w;
    }
    bool ok = done == len && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
    ok &= close(fd) == 0;
    if (!ok || rename(tmp, path)) {
        int err = errno;
        unlink(tmp);
        return convt_fail(e, "%s: cannot write: %s", path, strerror(err));
    }
    return 0;
}
