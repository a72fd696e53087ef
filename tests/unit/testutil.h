/* Helpers shared by the cmocka unit tests (tests/unit). Include after the cmocka prerequisites:
 * <stdarg.h> <stddef.h> <stdint.h> <setjmp.h> <cmocka.h>. */
#ifndef STEPNET_TESTUTIL_H
#define STEPNET_TESTUTIL_H

#include <stdint.h>

#include "stepnet/algo.h"
#include "stepnet/model.h"
#include "stepnet/sim.h"
#include "stepnet/topo.h"

/* Parses spec or fails the test with the parser's message. */
sn_topo_t *tu_topo(const char *spec);

/* Fails the test (printing both names, e.g. SN_EPORT vs SN_OK) unless rc == want. cmocka prints
 * negative codes as huge unsigned numbers, hence this wrapper. */
#define tu_assert_rc(rc, want) tu_assert_rc_((rc), (want), __FILE__, __LINE__)
void tu_assert_rc_(int rc, int want, const char *file, int line);

/* One simulated run: the outcome of sn_sim_run plus the algorithm's prediction. */
typedef struct tu_run_s {
    int rc; /* sn_sim_run's return */
    sn_err_t err;
    sn_sim_result_t res;
    int64_t predicted; /* -1 = none */
    const sn_algo_t *algo;
    sn_bounds_t bounds;
} tu_run_t;

/* Runs `algo` (NULL or "auto") for params p on t in the simulator with a slot limit of
 * 4 * predicted + 1024 (or 1 << 40 without a prediction). Fails the test if selection fails. */
tu_run_t tu_sim(const sn_topo_t *t, const sn_params_t *p, const char *algo);

/* Convenience: params for coll with the given port model (ports "multi"/"single", rx "one"/"any",
 * duplex "full"/"half"). */
sn_params_t tu_params(sn_coll_t coll, const char *ports, const char *rx, const char *duplex);

/* Writes `text` to a fresh temporary file and returns its path (static buffer per call site is
 * not needed: the path is malloc'd; free it). */
char *tu_tmpfile(const char *text);

#endif
