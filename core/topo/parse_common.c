/* What the spec parser's files share (core/topo): the bounded decimal reader whose messages every
 * family's parameters use, the node-count refusal, and the spec setter (parse_internal.h). */
#include <stdlib.h>

#include "core/topo/parse_internal.h"
#include "stepnet/util.h"

/* Parses a decimal number in [lo, hi] from s[0..len). */
int sn__topo_parse_num(const char *s, size_t len, uint64_t lo, uint64_t hi, const char *what,
                       const char *factor, uint64_t *out, sn_err_t *err)
{
    uint64_t v = 0;
    if (len == 0)
        return sn_err_set(err, SN_ESPEC,
                          "missing %s in '%s': expected an integer from %llu to %llu", what, factor,
                          (unsigned long long) lo, (unsigned long long) hi);
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return sn_err_set(
                err, SN_ESPEC, "bad %s '%.*s' in '%s': expected an integer from %llu to %llu", what,
                (int) len, s, factor, (unsigned long long) lo, (unsigned long long) hi);
        v = v * 10 + (uint64_t) (s[i] - '0');
    }
    if (v < lo || v > hi)
        return sn_err_set(err, v > hi ? SN_ERANGE : SN_ESPEC,
                          "%s %llu in '%s' is out of range: expected %llu to %llu", what,
                          (unsigned long long) v, factor, (unsigned long long) lo,
                          (unsigned long long) hi);
    *out = v;
    return 0;
}

int sn__topo_too_big(const char *factor, uint64_t nodes, sn_err_t *err)
{
    return sn_err_set(err, SN_ERANGE, "'%s' has %llu nodes; at most %u are supported", factor,
                      (unsigned long long) nodes, SN_TOPO_MAX_NODES);
}

int sn__topo_set_spec(sn_topo_t *t, const char *spec)
{
    free(t->spec);
    t->spec = sn_xstrdup(spec);
    return 0;
}
