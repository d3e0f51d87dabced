/* Seeded genealogy generator for the avos algorithm: people with a gender and up to two parents,
 * written as the relationship matrix of a red/black graph in CSR form (row i = person i; diagonal
 * -1 for a male, 1 for a female; column j holds 2 where j is i's father, 3 where j is i's mother).
 *
 * Shapes:
 *  - family: a population over `gens` generations of about n/gens people each. Founders start it;
 *    each person marries with probability 0.9, either a relative (with probability collapse/100:
 *    an unmarried person of the other gender among the next few of the same generation, in
 *    practice a sibling's or cousin's child: pedigree collapse) or an outsider who marries in
 *    without recorded parents; couples have children who form the next generation, 3% of them
 *    with one parent unrecorded. When the generations are used up before n people exist, a new
 *    family starts. Ancestries stay moderate (realistic genealogy databases).
 *  - pedigree: the full ancestor tree of person 0 in heap order (person p's father is 2p+1, its
 *    mother 2p+2, while those exist), so person p has about n/2^depth(p) ancestors: the rows of
 *    its closure range from one entry to n. With collapse, a person takes the parents of the
 *    previous person of the same gender and generation (siblings marrying into one line).
 * Parents always come from earlier generations, so the graph is acyclic, unless `cycle` asks for
 * one: then a person p becomes a parent of one of its own ancestors (1 to 8 generations up), and
 * info->cycle_from / cycle_to say which.
 *
 * The same options and seed give the same matrix on every machine. */
#ifndef GR_DATASETS_GENEALOGY_H
#define GR_DATASETS_GENEALOGY_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/avos/avos_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

enum genealogy_shape { GENEALOGY_FAMILY, GENEALOGY_PEDIGREE };

struct genealogy_opts {
  enum genealogy_shape shape;
  int64_t n;    /* people (vertices), 0 .. 2^31-2 */
  int gens;     /* family: generations per family, >= 1 (pedigree: ignored) */
  int collapse; /* percent, 0 .. 100: relatives marrying */
  int cycle;    /* 1: inject one cycle */
  uint64_t seed;
};

struct genealogy_info {
  int64_t founders;   /* people without recorded parents */
  int64_t edges;      /* parent links (off-diagonal entries) */
  int depth;          /* generations in the deepest family (pedigree: tree depth + 1) */
  int64_t cycle_from; /* the person made a parent of its own ancestor, -1 without a cycle */
  int64_t cycle_to;   /* that ancestor, -1 without a cycle */
};

/* Generate into w (allocated here; release with avos_csr_release). info may be NULL.
 * 0 ok; -1 with why (bad options, out of memory). */
int genealogy_generate(const struct genealogy_opts *o, struct avos_csr *w,
                       struct genealogy_info *info, char *why, size_t len);

/* Check that w is a relationship matrix: square, every diagonal stored as -1 or 1, every other
 * entry 2 in a male column or 3 in a female column, at most one father and one mother per row.
 * 0 ok; -1 with why naming the entry. */
int genealogy_validate(const struct avos_csr *w, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
