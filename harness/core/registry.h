/* The table of algorithms the harness knows. */
#ifndef GR_REGISTRY_H
#define GR_REGISTRY_H

#include <stddef.h>

#include "alg.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct algorithm *const registry[];
extern const size_t registry_count;

/* NULL if unknown */
const struct algorithm *registry_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif
