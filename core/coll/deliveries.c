/* Who sends what to whom in a collective (core/coll): what every node must receive (the definition
 * of "verified"), the run parameters and their checks, and the step output helpers that every
 * algorithm uses. The collectives' names and flags are their list's (colls.c), the bytes of their
 * packets payload.c's. */
#include <stdlib.h>
#include <string.h>

#include "core/coll/coll.h"
#include "stepnet/algo.h"
#include "stepnet/util.h"

void sn_params_default(sn_params_t *p, sn_coll_t coll)
{
    memset(p, 0, sizeof *p);
    p->coll = coll;
    p->op = sn_op_default(coll);
    p->pm.ports = SN_PORTS_MULTI;
    p->pm.rx = SN_RX_ONE;
    p->pm.duplex = SN_DUPLEX_FULL;
    p->root = 0;
    p->msgs = 1;
    p->frags = 1;
    p->size = 8;
    p->seed = 1;
}

/* The collectives that algorithms run (not driven by rounds). */
static int runs_once(sn_coll_t c)
{
    return !sn_coll_is_rounds(c);
}

int sn_params_check_free(const sn_params_t *p, sn_err_t *err)
{
    if ((unsigned) p->coll >= SN_COLL_COUNT)
        return sn_err_set(err, SN_EINVAL, "unknown collective %d", (int) p->coll);
    if (sn_coll_is_rounds(p->coll)) {
        char list[256];
        return sn_err_set(err, SN_ENOTSUP,
                          "collective %s is rounds of broadcasts arriving at random, not one "
                          "collective: no algorithm runs it (sim and run play its rounds); "
                          "accepted here: %s",
                          sn_coll_name(p->coll), sn__coll_names(list, sizeof list, runs_once));
    }
    if ((unsigned) p->op >= SN_OP_COUNT)
        return sn_err_set_param(err, SN_EINVAL, SN_PARAM_OP,
                                "unknown combining operator %d; accepted: " SN_OP_NAMES,
                                (int) p->op);
    if (p->coll == SN_COLL_BARRIER && (p->msgs != 1 || p->frags != 1))
        return sn_err_set_param(err, SN_EINVAL, p->msgs != 1 ? SN_PARAM_MSGS : SN_PARAM_FRAGS,
                                "a barrier moves one token per processor: messages %u and "
                                "fragments %u must both be 1",
                                p->msgs, p->frags);
    if (p->msgs < 1 || p->msgs > 1u << 20)
        return sn_err_set_param(err, SN_ERANGE, SN_PARAM_MSGS,
                                "messages per pair %u out of range: expected 1 to %u", p->msgs,
                                1u << 20);
    if (p->frags < 1 || p->frags > 1u << 16)
        return sn_err_set_param(err, SN_ERANGE, SN_PARAM_FRAGS,
                                "fragments %u out of range: expected 1 to %u", p->frags, 1u << 16);
    if ((uint64_t) p->msgs * p->frags > 1u << 24)
        return sn_err_set_param(
            err, SN_ERANGE, SN_PARAM_MSGS,
            "%u messages per pair with %u fragments is %llu packets per pair; at most %u", p->msgs,
            p->frags, (unsigned long long) p->msgs * p->frags, 1u << 24);
    if (p->size > SN_MAX_PACKET_SIZE)
        return sn_err_set_param(err, SN_ERANGE, SN_PARAM_SIZE,
                                "packet size %u bytes out of range: expected 0 to %u", p->size,
                                SN_MAX_PACKET_SIZE);
    if (p->pm.ports == SN_PORTS_MULTI && p->pm.rx == SN_RX_ANY)
        return sn_err_set_param(err, SN_EINVAL, SN_PARAM_RX,
                                "the reception limit 'any' only applies to single-port (multiport "
                                "never limits receptions); the limits are 'one' and 'any'");
    return 0;
}

int sn_params_check(const sn_topo_t *t, const sn_params_t *p, sn_err_t *err)
{
    int rc = sn_params_check_free(p, err);
    if (rc < 0)
        return rc;
    if (p->root >= t->n || !sn_topo_is_proc(t, p->root))
        return sn_err_set_param(err, SN_EINVAL, SN_PARAM_ROOT, "root must be a processor of %s",
                                t->spec);
    int partial = sn_coll_is_partial(p->coll);
    if (partial && p->sources == NULL)
        return sn_err_set_param(err, SN_EINVAL, SN_PARAM_SOURCES,
                                "%s needs its sources: a list of processors or a number of them",
                                sn_coll_name(p->coll));
    if (!partial && p->sources != NULL) {
        char list[128];
        return sn_err_set_param(
            err, SN_EINVAL, SN_PARAM_SOURCES, "sources apply to partial collectives (%s), not %s",
            sn__coll_names(list, sizeof list, sn_coll_is_partial), sn_coll_name(p->coll));
    }
    for (uint32_t i = 0; partial && i < p->nsources; i++) {
        if (p->sources[i] >= t->n || !sn_topo_is_proc(t, p->sources[i]))
            return sn_err_set_param(err, SN_EINVAL, SN_PARAM_SOURCES,
                                    "source %u is not a processor of %s", p->sources[i], t->spec);
        if (i > 0 && p->sources[i] <= p->sources[i - 1])
            return sn_err_set_param(
                err, SN_EINVAL, SN_PARAM_SOURCES,
                p->sources[i] == p->sources[i - 1]
                    ? "sources must be distinct (%u repeats)"
                    : "sources must be sorted in ascending order (%u follows a larger "
                      "id)",
                p->sources[i]);
    }
    uint64_t total = sn_coll_expected_total(t, p);
    if (total > (1ull << 34))
        return sn_err_set_param(err, SN_ERANGE, SN_PARAM_MSGS,
                                "%s on %s with %u messages per pair means %llu deliveries; at "
                                "most 2^34 are supported",
                                sn_coll_name(p->coll), t->spec, p->msgs,
                                (unsigned long long) total);
    return 0;
}

/* ---- who sends what to whom -------------------------------------------------------------------
 * Read from the senders and receivers of the list (colls.def): every receiver expects msgs * frags
 * packets from every sender but itself, or, in a combining collective, one combined packet per
 * (seq, frag). */

/* The number of processors in group g. */
static uint64_t group_size(const sn_topo_t *t, const sn_params_t *p, sn_coll_group_t g)
{
    switch (g) {
    case SN_COLL_GROUP_ROOT:
        return 1;
    case SN_COLL_GROUP_ALL:
        return t->nproc;
    case SN_COLL_GROUP_SOURCES:
        return p->nsources;
    default:
        return 0;
    }
}

/* 1 when processor u is in group g. */
static int in_group(const sn_params_t *p, sn_coll_group_t g, uint32_t u)
{
    switch (g) {
    case SN_COLL_GROUP_ROOT:
        return u == p->root;
    case SN_COLL_GROUP_ALL:
        return 1;
    case SN_COLL_GROUP_SOURCES:
        return sn_u32_index(p->sources, p->nsources, u) >= 0;
    default:
        return 0;
    }
}

/* The number of processors in both a and b. */
static uint64_t overlap(const sn_topo_t *t, const sn_params_t *p, sn_coll_group_t a,
                        sn_coll_group_t b)
{
    if (a == SN_COLL_GROUP_ALL)
        return group_size(t, p, b);
    if (b == SN_COLL_GROUP_ALL || a == b)
        return group_size(t, p, a);
    if (a == SN_COLL_GROUP_NONE || b == SN_COLL_GROUP_NONE)
        return 0;
    return sn_u32_index(p->sources, p->nsources, p->root) >= 0; /* the root and the sources */
}

sn_expect_t sn_coll_expect(const sn_topo_t *t, const sn_params_t *p, uint32_t u)
{
    sn_expect_t e = {0, (uint64_t) p->msgs * p->frags};
    sn_coll_group_t from = sn__coll_senders(p->coll), to = sn__coll_receivers(p->coll);
    if (!sn_topo_is_proc(t, u) || !in_group(p, to, u))
        return e;
    if (sn_coll_is_combining(p->coll))
        e.nsrc = 1;
    else
        e.nsrc = (uint32_t) (group_size(t, p, from) - (uint64_t) in_group(p, from, u));
    return e;
}

int64_t sn_coll_source_index(const sn_topo_t *t, const sn_params_t *p, uint32_t u, uint32_t src,
                             uint32_t dst)
{
    sn_coll_group_t from = sn__coll_senders(p->coll), to = sn__coll_receivers(p->coll);
    if (sn_coll_is_combining(p->coll)) {
        /* one combined packet per (seq, frag), addressed to u */
        if (u >= t->n || src != SN_SRC_COMBINED || dst != u || !sn_topo_is_proc(t, u))
            return -1;
        return in_group(p, to, u) ? 0 : -1;
    }
    if (u >= t->n || src >= t->n || src == u || !sn_topo_is_proc(t, u) || !sn_topo_is_proc(t, src))
        return -1;
    uint32_t want_dst = sn_coll_is_broadcast(p->coll) ? SN_NODE_ALL : u;
    if (dst != want_dst || !in_group(p, to, u) || !in_group(p, from, src))
        return -1;
    /* the position of src among the senders other than u */
    switch (from) {
    case SN_COLL_GROUP_ROOT:
        return 0;
    case SN_COLL_GROUP_ALL: {
        int64_t rs = sn_topo_rank(t, src), ru = sn_topo_rank(t, u);
        return rs - (rs > ru);
    }
    case SN_COLL_GROUP_SOURCES: {
        int64_t ps = sn_u32_index(p->sources, p->nsources, src),
                pu = sn_u32_index(p->sources, p->nsources, u);
        return ps - (pu >= 0 && pu < ps);
    }
    default:
        return -1;
    }
}

uint64_t sn_coll_expected_total(const sn_topo_t *t, const sn_params_t *p)
{
    uint64_t per = (uint64_t) p->msgs * p->frags;
    sn_coll_group_t from = sn__coll_senders(p->coll), to = sn__coll_receivers(p->coll);
    if (sn_coll_is_combining(p->coll))
        return group_size(t, p, to) * per;
    /* every receiver from every sender but itself */
    return (group_size(t, p, to) * group_size(t, p, from) - overlap(t, p, to, from)) * per;
}

/* ---- step output ------------------------------------------------------------------------- */

void sn_step_grow_tx(sn_step_t *io)
{
    sn_grow((void **) &io->tx, &io->txcap, io->ntx + 1, sizeof *io->tx);
}

void sn_step_grow_dlv(sn_step_t *io)
{
    sn_grow((void **) &io->dlv, &io->dlvcap, io->ndlv + 1, sizeof *io->dlv);
}
