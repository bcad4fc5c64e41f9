#include "plugin.h"

#include <dlfcn.h>
#include <string.h>

/* A variant name is a config's word for it: [a-z0-9_], 1 to 63 characters. */
static bool good_name(const char *n)
{
    if (!n || !*n || strlen(n) > 63)
        return false;
    for (const char *c = n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return false;
    return true;
}

static int check_variant(const char *path, int i, const convt_variant *v, convt_err *e)
{
    if (!good_name(v->name))
        return convt_fail(e, "%s: variant %d: its name must be 1 to 63 of [a-z0-9_]", path, i);
    if (v->backend != CONVT_BACKEND_CPU && v->backend != CONVT_BACKEND_CUDA)
        return convt_fail(e, "%s: variant %s: backend %d is neither CPU nor CUDA", path, v->name,
                          (int)v->backend);
    if (v->tier != CONVT_TIER_FP32 && v->tier != CONVT_TIER_TF32)
        return convt_fail(e, "%s: variant %s: tier %d is neither fp32 nor tf32", path, v->name,
                          (int)v->tier);
    if (!v->supports || !v->launch)
        return convt_fail(e, "%s: variant %s: supports() and launch() are required", path,
                          v->name);
    if (v->n_knobs < 0 || v->n_knobs > CONVT_MAX_KNOBS)
        return convt_fail(e, "%s: variant %s: %d knobs (at most %d)", path, v->name, v->n_knobs,
                          CONVT_MAX_KNOBS);
    for (int k = 0; k < v->n_knobs; k++) {
        const convt_knob *kn = &v->knobs[k];
        if (!good_name(kn->name) || kn->n_defaults < 1 || kn->n_defaults > CONVT_MAX_KNOB_VALUES)
            return convt_fail(e, "%s: variant %s: knob %d needs a name of [a-z0-9_] and 1 to %d "
                                 "default values",
                              path, v->name, k, CONVT_MAX_KNOB_VALUES);
    }
    return 0;
}

int convt_plugin_open(const char *path, bool (*taken)(const char *name, void *arg), void *arg,
                      void **handle, const convt_plugin **plugin, convt_err *e)
{
    /* a bare name would be searched for in the library path: say ./x.so */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return convt_fail(e, "plugin %s: %s", path, dlerror());
    const convt_plugin *p = dlsym(h, CONVT_PLUGIN_SYMBOL);
    if (!p) {
        dlclose(h);
        return convt_fail(e, "plugin %s exports no %s (convt/variant.h, \"Plugins\", says how)",
                          path, CONVT_PLUGIN_SYMBOL);
    }
    if (p->abi_version != CONVT_VARIANT_ABI_VERSION) {
        int v = p->abi_version;
        dlclose(h);
        return convt_fail(e, "plugin %s was built against variant ABI %d; this is ABI %d: "
                             "rebuild it against these headers",
                          path, v, CONVT_VARIANT_ABI_VERSION);
    }
    int n = 0;
    for (; p->variants && p->variants[n]; n++) {
        if (check_variant(path, n, p->variants[n], e) < 0) {
            dlclose(h);
            return -1;
        }
        for (int j = 0; j < n; j++)
            if (!strcmp(p->variants[j]->name, p->variants[n]->name)) {
                convt_fail(e, "plugin %s offers two variants named %s", path,
                           p->variants[n]->name);
                dlclose(h);
                return -1;
            }
        if (taken && taken(p->variants[n]->name, arg)) {
            convt_fail(e, "plugin %s: a variant named %s exists already", path,
                       p->variants[n]->name);
            dlclose(h);
            return -1;
        }
    }
    if (n == 0) {
        dlclose(h);
        return convt_fail(e, "plugin %s offers no variants", path);
    }
    *handle = h;
    *plugin = p;
    return 0;
}

void convt_plugin_close(void *handle)
{
    if (handle)
        dlclose(handle);
}
