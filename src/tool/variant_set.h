/* The variants one run of convt-bench knows: the built-in table
 * (kernels/registry.c), then the variants of each --plugin in the order
 * given. Plugins are loaded before the config is read, in the orchestrator
 * and again in every worker (the same paths), so that a config may name
 * their variants and a faulting plugin costs one record. */
#ifndef CONVT_SRC_TOOL_VARIANT_SET_H
#define CONVT_SRC_TOOL_VARIANT_SET_H

#include "errors.h"
#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NULL-terminated: the built-ins, then the plugins' variants. */
const convt_variant *const *convt_tool_variants(void);
const convt_variant *convt_tool_variant_find(const char *name);
/* Loads a plugin's variants (refused: a name already in use, another ABI). */
int convt_tool_load_plugin(const char *path, convt_err *e);
int convt_tool_plugin_count(void);
const char *convt_tool_plugin_path(int i);
/* The plugin that offers variant v, or NULL for a built-in. */
const char *convt_tool_plugin_of(const convt_variant *v);

#ifdef __cplusplus
}
#endif
#endif
