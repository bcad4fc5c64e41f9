/* Small helpers shared by the CPU variants. */
#ifndef CONVT_KERNELS_CPU_COMMON_H
#define CONVT_KERNELS_CPU_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The thread count a CPU variant uses for knob value `threads`: 0 means every
 * thread OpenMP offers. Without OpenMP everything runs on one thread. */
static inline int cpu_threads(int64_t threads)
{
#ifdef _OPENMP
    return threads > 0 ? (int)threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

/* The most threads the `threads` knob may ask for: a few per processor, so
 * that oversubscription can be measured, and never more than 1024. Far more
 * (100000) overflows libgomp's stack inside the parallel region and kills
 * the process instead of skipping the run. */
static inline int cpu_threads_limit(int *procs)
{
#ifdef _OPENMP
    *procs = omp_get_num_procs();
#else
    *procs = (int)sysconf(_SC_NPROCESSORS_ONLN);
#endif
    if (*procs < 1)
        *procs = 1;
    return *procs < 256 ? 4 * *procs : 1024;
}

/* The check every CPU variant's supports() makes of its `threads` knob. */
static inline bool cpu_check_threads(int64_t threads, char *why, size_t why_len)
{
    int procs, limit = cpu_threads_limit(&procs);
    if (threads >= 0 && threads <= limit)
        return true;
    snprintf(why, why_len,
             "threads = %lld is above %d, the limit on this machine (4 per processor, %d "
             "processors, at most 1024); use 0 (OpenMP's default, every processor) or fewer",
             (long long)threads, limit, procs);
    return false;
}

#endif
