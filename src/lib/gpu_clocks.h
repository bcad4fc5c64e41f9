/* The GPU's SM clock and throttle reasons, read through NVML loaded at run
 * time (dlopen): a binary built here must still start on machines without the
 * NVIDIA driver (CI), so NVML is optional and never linked. Used by the CUDA
 * backend to record, per timed run, the clock range over its samples and how
 * many were taken while the GPU was throttling. */
#ifndef CONVT_SRC_GPU_CLOCKS_H
#define CONVT_SRC_GPU_CLOCKS_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct convt_clock_reading {
    unsigned sm_mhz;
    bool throttled;   /* power cap, thermal or hardware slowdown active */
} convt_clock_reading;

/* Loads NVML for the device at this PCI bus id (CUDA's and NVML's device
 * numbers differ: CUDA orders by speed and obeys CUDA_VISIBLE_DEVICES);
 * false (and nothing else) when NVML is absent. */
bool convt_gpu_clocks_open(const char *pci_bus_id);
/* 0 on success; -1 when NVML is not open or the read failed. */
int convt_gpu_clocks_read(convt_clock_reading *r);
void convt_gpu_clocks_close(void);

#ifdef __cplusplus
}
#endif
#endif
