/* Fuzz target (tests/fuzz): schedule files, the parser (sn_sched_file_parse) and, for a file that
 * parses and names a small topology, the checker against the file's own instance. */
#include <stdlib.h>

#include "stepnet/schedule_file.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    sn_sched_file_t *f = NULL;
    sn_err_t err = {0};
    if (sn_sched_file_parse((const char *) data, size, &f, &err) != 0)
        return 0;
    sn_topo_t *t = NULL;
    if (sn_topo_parse_budget(f->topo, NULL, 0, FUZZ_TOPO_BUDGET, &t, &err) == 0) {
        if (t->n <= 4096 && sn_params_check(t, &f->params, &err) == 0)
            (void) sn_sched_file_check(f, t, &f->params, &err);
        sn_topo_free(t);
    }
    sn_sched_file_free(f);
    return 0;
}
