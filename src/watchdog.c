#include "watchdog.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static pthread_t thread;
static bool running, armed;
static struct timespec deadline;
static double limit_s;
static char what_now[512], results[1024];

static void *watch(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (running) {
        if (!armed) {
            pthread_cond_wait(&changed, &lock);
            continue;
        }
        struct timespec until = deadline;
        if (pthread_cond_timedwait(&changed, &lock, &until) == 0 || !armed)
            continue;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        if (now.tv_sec > deadline.tv_sec ||
            (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) {
            fprintf(stderr,
                    "convt-bench: %s did not finish within %.3g s (measure.hang_timeout_s). On a "
                    "GPU this is usually a kernel that never ends; on the CPU, a step that is "
                    "just slow (raise hang_timeout_s). Results of the shapes before this one are "
                    "in %s. Exclude this variant or shape, or raise the limit, and run again.\n",
                    what_now, limit_s, results);
            fflush(stderr);
            _exit(3);
        }
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

int convt_watchdog_start(const char *results_path)
{
    snprintf(results, sizeof results, "%s", results_path);
    running = true;
    return pthread_create(&thread, NULL, watch, NULL) ? -1 : 0;
}

void convt_watchdog_stop(void)
{
    pthread_mutex_lock(&lock);
    if (!running) {
        pthread_mutex_unlock(&lock);
        return;
    }
    running = false;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
}

void convt_watchdog_arm(double seconds, const char *what)
{
    pthread_mutex_lock(&lock);
    armed = seconds > 0;
    limit_s = seconds;
    snprintf(what_now, sizeof what_now, "%s", what);
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)seconds;
    deadline.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}

void convt_watchdog_disarm(void)
{
    pthread_mutex_lock(&lock);
    armed = false;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}
