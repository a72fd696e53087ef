/* Fuzz target (tests/fuzz): the topology spec parser, sn_topo_parse_budget, on any bytes as a
 * spec. `file:` factors get no contents (files supplied, none matching), so nothing is read from
 * disk; the memory budget keeps accepted specs small. */
#include <stdlib.h>
#include <string.h>

#include "stepnet/topo.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *spec = malloc(size + 1);
    if (spec == NULL)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    sn_topo_file_t none = {0};
    sn_topo_t *t = NULL;
    sn_err_t err = {0};
    if (sn_topo_parse_budget(spec, &none, 0, FUZZ_TOPO_BUDGET, &t, &err) == 0) {
        if (t->n > 0 && t->n <= 4096)
            (void) sn_topo_diameter(t, 1);
        sn_topo_free(t);
    }
    free(spec);
    return 0;
}
