/* Selection: per shape and precision tier, the fastest record that passed
 * validation, with its speedup over the cuDNN variant of the same tier. The
 * table is what the run-time dispatch reads; it is derived from a results
 * document alone, so it can be rebuilt from any results file. */
#ifndef CONVT_SRC_SELECT_H
#define CONVT_SRC_SELECT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

/* A new selection document (caller frees with cJSON_Delete). */
cJSON *convt_select(const cJSON *results);
/* The table for people: shape, tier, winner, launch, time, vs cuDNN, floor. */
void convt_selection_print(const cJSON *selection, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
