/* A hung device step (a kernel that never finishes; seen with cuDNN 9.14's
 * TF32 backward-data on one shape) cannot be interrupted from inside the
 * process: the host waits in cudaStreamSynchronize forever. The watchdog
 * turns that into a clear failure: if an armed step outlives its limit, it
 * prints which run hung and where the results so far are, and ends the
 * process with exit status 3. Everything recorded before the hung shape is
 * already on disk (results are written after every shape). */
#ifndef CONVT_SRC_WATCHDOG_H
#define CONVT_SRC_WATCHDOG_H

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the watchdog thread; results_path is named in its message. */
int convt_watchdog_start(const char *results_path);
void convt_watchdog_stop(void);
/* The step `what` must finish within seconds (<= 0: no limit). */
void convt_watchdog_arm(double seconds, const char *what);
void convt_watchdog_disarm(void);

#ifdef __cplusplus
}
#endif
#endif
