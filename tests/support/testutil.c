/* Test helpers (tests/support) shared by the cmocka tests: topologies and simulator runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/testutil.h"

sn_topo_t *tu_topo(const char *spec)
{
    sn_topo_t *t = NULL;
    sn_err_t err = {0};
    int rc = sn_topo_parse(spec, &t, &err);
    if (rc < 0)
        fail_msg("sn_topo_parse(\"%s\") failed: %s", spec, err.msg);
    return t;
}

void tu_assert_rc_(int rc, int want, const char *file, int line)
{
    if (rc != want) {
        print_error("return code %s (%d), expected %s (%d)\n", sn_err_name(rc), rc,
                    sn_err_name(want), want);
        _fail(file, line);
    }
}

sn_params_t tu_params(sn_coll_t coll, const char *ports, const char *rx, const char *duplex)
{
    sn_params_t p;
    sn_params_default(&p, coll);
    p.pm.ports = strcmp(ports, "single") == 0 ? SN_PORTS_SINGLE : SN_PORTS_MULTI;
    p.pm.rx = strcmp(rx, "any") == 0 ? SN_RX_ANY : SN_RX_ONE;
    p.pm.duplex = strcmp(duplex, "half") == 0 ? SN_DUPLEX_HALF : SN_DUPLEX_FULL;
    return p;
}

tu_run_t tu_sim(const sn_topo_t *t, const sn_params_t *p, const char *algo)
{
    tu_run_t r;
    memset(&r, 0, sizeof r);
    void *plan = NULL;
    int rc = sn_model_select(algo, t, p, &r.algo, &plan, &r.predicted, &r.err);
    if (rc < 0)
        fail_msg("selecting %s for %s on %s: %s", algo ? algo : "auto", sn_coll_name(p->coll),
                 t->spec, r.err.msg);
    if (sn_model_bounds(t, p, &r.bounds, &r.err) < 0)
        fail_msg("bounds for %s on %s: %s", sn_coll_name(p->coll), t->spec, r.err.msg);
    sn_sim_opts_t opts = {0};
    opts.max_slots = r.predicted >= 0 ? 4 * (uint64_t) r.predicted + 1024 : 1ull << 40;
    r.rc = sn_sim_run(t, p, r.algo, plan, &opts, &r.res, &r.err);
    r.algo->plan_free(plan);
    return r;
}

char *tu_tmpfile(const char *text)
{
    char *path = strdup("/tmp/stepnet-test-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        fail_msg("mkstemp failed");
    size_t len = strlen(text);
    if (write(fd, text, len) != (ssize_t) len)
        fail_msg("write to %s failed", path);
    close(fd);
    return path;
}

const char *const tu_contract_fields[] = {"cmd",
                                          "topology",
                                          "nodes",
                                          "processors",
                                          "links",
                                          "collective",
                                          "ports",
                                          "rx",
                                          "duplex",
                                          "algorithm",
                                          "steps",
                                          "predicted_steps",
                                          "lower_bound",
                                          "control_slots",
                                          "data_slots",
                                          "frags",
                                          "tp",
                                          "time_units",
                                          "packets",
                                          "deliveries",
                                          "expected_deliveries",
                                          "verified",
                                          "trace_hash",
                                          NULL};
