#include "gpu_clocks.h"

#include <dlfcn.h>
#include <stddef.h>

/* From NVML's documented ABI (nvml.h): return code 0 is NVML_SUCCESS,
 * NVML_CLOCK_SM is 1, and the clocks-event (throttle) reason bits below. */
#define NVML_CLOCK_SM 1
#define REASON_SW_POWER_CAP 0x4ull
#define REASON_HW_SLOWDOWN 0x8ull
#define REASON_SW_THERMAL 0x20ull
#define REASON_HW_THERMAL 0x40ull
#define REASON_HW_POWER_BRAKE 0x80ull
#define THROTTLING (REASON_SW_POWER_CAP | REASON_HW_SLOWDOWN | REASON_SW_THERMAL | \
                    REASON_HW_THERMAL | REASON_HW_POWER_BRAKE)

typedef void *nvml_device;
static void *lib;
static nvml_device device;
static int (*nvml_shutdown)(void);
static int (*get_clock)(nvml_device, int, unsigned *);
static int (*get_reasons)(nvml_device, unsigned long long *);

bool convt_gpu_clocks_open(const char *pci_bus_id)
{
    if (lib)
        return true;
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return false;
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*by_bus_id)(const char *, nvml_device *) =
        (int (*)(const char *, nvml_device *))dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nvml_shutdown = (int (*)(void))dlsym(lib, "nvmlShutdown");
    get_clock = (int (*)(nvml_device, int, unsigned *))dlsym(lib, "nvmlDeviceGetClockInfo");
    /* Renamed in newer drivers; the old name remains as an alias. */
    get_reasons = (int (*)(nvml_device, unsigned long long *))dlsym(
        lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!get_reasons)
        get_reasons = (int (*)(nvml_device, unsigned long long *))dlsym(
            lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!init || !by_bus_id || !nvml_shutdown || !get_clock || !get_reasons || init() != 0) {
        dlclose(lib);
        lib = NULL;
        return false;
    }
    if (by_bus_id(pci_bus_id, &device) != 0) {
        convt_gpu_clocks_close();
        return false;
    }
    return true;
}

int convt_gpu_clocks_read(convt_clock_reading *r)
{
    unsigned mhz = 0;
    unsigned long long reasons = 0;
    if (!lib || get_clock(device, NVML_CLOCK_SM, &mhz) != 0 || get_reasons(device, &reasons) != 0)
        return -1;
    r->sm_mhz = mhz;
    r->throttled = (reasons & THROTTLING) != 0;
    return 0;
}

void convt_gpu_clocks_close(void)
{
    if (!lib)
        return;
    nvml_shutdown();
    dlclose(lib);
    lib = NULL;
}
