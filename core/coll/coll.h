/* Internal interface of the collectives (core/coll): the columns of their list (colls.def) that
 * the rest of the core reads beside the public predicates of stepnet/algo.h, namely who sends
 * and who receives, and the lists of names that messages and README.md print. */
#ifndef STEPNET_CORE_COLL_COLL_H
#define STEPNET_CORE_COLL_COLL_H

#include <stddef.h>

#include "stepnet/algo.h"

/* The flags of colls.def (its opening comment says what each means). */
#define SN_COLL_F_BROADCAST (1u << 0)
#define SN_COLL_F_COMBINING (1u << 1)
#define SN_COLL_F_UNIFORM   (1u << 2)
#define SN_COLL_F_ROUNDS    (1u << 3)

/* Who sends or receives in a collective (the senders and receivers columns of colls.def). */
typedef enum {
    SN_COLL_GROUP_NONE,    /* nobody: a collective driven by rounds of another */
    SN_COLL_GROUP_ROOT,    /* the root processor, sn_params_t.root */
    SN_COLL_GROUP_ALL,     /* every processor */
    SN_COLL_GROUP_SOURCES, /* the processors of sn_params_t.sources */
} sn_coll_group_t;

/* The processors that send in collective c, and those that receive (SN_COLL_GROUP_NONE for an
 * id outside the list). */
sn_coll_group_t sn__coll_senders(sn_coll_t c);
sn_coll_group_t sn__coll_receivers(sn_coll_t c);

/* 1 when the root sends or receives (bcast, scatter, gather, sna): the run's root matters. */
int sn__coll_is_rooted(sn_coll_t c);

/* 1 for SN_COLL_F_UNIFORM (allreduce, barrier): every processor contributes one value, the same
 * for every receiver. */
int sn__coll_is_uniform(sn_coll_t c);

/* Writes into buf (cap bytes, NUL-terminated, truncated if short) the names of the collectives
 * for which keep returns 1, in the list's order, separated by ", "; returns buf. */
char *sn__coll_names(char *buf, size_t cap, int (*keep)(sn_coll_t c));

/* README.md's "Collectives" table in markdown, one row per collective of the list: its name, its
 * MPI name and other accepted spelling, what kind it is and its summary. The caller frees it. */
char *sn__coll_markdown(void);

#endif
