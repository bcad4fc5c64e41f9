/* Opening a plugin (convt/variant.h, "Plugins"): dlopen, the entry
 * symbol, the ABI version, and a check of every variant it offers, so that
 * a plugin that is not what it claims is refused with the reason before any
 * of its code runs. Used by convt-bench --plugin and convt_ctx_load_plugin. */
#ifndef CONVT_SRC_LIB_PLUGIN_H
#define CONVT_SRC_LIB_PLUGIN_H

#include "errors.h"
#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens path; *plugin points into it (valid while *handle stays open).
 * `taken` (may be NULL) says whether a variant name is already in use (a
 * built-in, or another plugin's): such a plugin is refused. */
int convt_plugin_open(const char *path, bool (*taken)(const char *name, void *arg), void *arg,
                      void **handle, const convt_plugin **plugin, convt_err *e);
void convt_plugin_close(void *handle);

#ifdef __cplusplus
}
#endif
#endif
