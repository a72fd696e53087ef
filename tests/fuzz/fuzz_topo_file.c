/* Fuzz target (tests/fuzz): `file:` graphs, the edge-list parser, with the input as the file's
 * contents (supplied, as a coordinator ships them to nodes). */
#include <stdlib.h>
#include <string.h>

#include "stepnet/topo.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    sn_topo_file_t f = {.path = "g", .text = text, .len = size};
    sn_topo_t *t = NULL;
    sn_err_t err = {0};
    if (sn_topo_parse_budget("file:g", &f, 1, FUZZ_TOPO_BUDGET, &t, &err) == 0) {
        if (t->n <= 4096)
            (void) sn_topo_diameter(t, 1);
        sn_topo_free(t);
    }
    free(text);
    return 0;
}
