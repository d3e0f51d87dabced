/* The algorithms this runner knows: every table that registered itself (GR_REGISTER_ALGORITHM,
 * alg.h) before main, sorted by name. No list of algorithms is kept anywhere in the source. */
#ifndef GR_REGISTRY_H
#define GR_REGISTRY_H

#include <stddef.h>

#include "alg.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GR_MAX_ALGORITHMS 64

extern const struct gr_algorithm *registry[GR_MAX_ALGORITHMS];
extern size_t registry_count;

/* NULL if unknown */
const struct gr_algorithm *registry_find(const char *name);

/* How many registrations were refused (a message on stderr said why, for each). */
size_t registry_refused(void);

#ifdef __cplusplus
}
#endif

#endif
