#include "variant_set.h"

#include <stdlib.h>
#include <string.h>

#include "plugin.h"

#define MAX_PLUGINS 16
#define MAX_VARIANTS 256

static const convt_variant *table[MAX_VARIANTS + 1];
static const char *origin[MAX_VARIANTS]; /* the plugin's path; NULL: built in */
static int n_table = -1;
static char *plugin_paths[MAX_PLUGINS];
static int n_plugins;

static void fill_builtins(void)
{
    if (n_table >= 0)
        return;
    n_table = 0;
    for (const convt_variant *const *v = convt_variants; *v && n_table < MAX_VARIANTS; v++)
        table[n_table++] = *v;
    table[n_table] = NULL;
}

const convt_variant *const *convt_tool_variants(void)
{
    fill_builtins();
    return table;
}

const convt_variant *convt_tool_variant_find(const char *name)
{
    fill_builtins();
    for (int i = 0; i < n_table; i++)
        if (!strcmp(table[i]->name, name))
            return table[i];
    return NULL;
}

static bool name_taken(const char *name, void *arg)
{
    (void)arg;
    return convt_tool_variant_find(name) || convt_variant_name_find(name);
}

int convt_tool_load_plugin(const char *path, convt_err *e)
{
    fill_builtins();
    if (n_plugins == MAX_PLUGINS)
        return convt_fail(e, "--plugin: at most %d plugins", MAX_PLUGINS);
    void *handle;
    const convt_plugin *p;
    if (convt_plugin_open(path, name_taken, NULL, &handle, &p, e))
        return -1;
    int n = 0;
    while (p->variants[n])
        n++;
    if (n_table + n > MAX_VARIANTS) {
        convt_plugin_close(handle);
        return convt_fail(e, "--plugin %s: more than %d variants in all", path, MAX_VARIANTS);
    }
    char *kept = strdup(path);
    if (!kept) {
        convt_plugin_close(handle);
        return convt_fail(e, "out of memory");
    }
    plugin_paths[n_plugins++] = kept;
    for (int i = 0; i < n; i++) {
        origin[n_table] = kept;
        table[n_table++] = p->variants[i];
    }
    table[n_table] = NULL;
    /* the handle stays open for the life of the process: its variants are
     * in the table */
    return 0;
}

int convt_tool_plugin_count(void) { return n_plugins; }
const char *convt_tool_plugin_path(int i) { return i >= 0 && i < n_plugins ? plugin_paths[i] : NULL; }

const char *convt_tool_plugin_of(const convt_variant *v)
{
    fill_builtins();
    for (int i = 0; i < n_table; i++)
        if (table[i] == v)
            return origin[i];
    return NULL;
}
