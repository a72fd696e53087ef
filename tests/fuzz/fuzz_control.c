/* Fuzz target (tests/fuzz): control messages, sn_wire_unpack_control, and an assignment's run
 * parameters, sn_wire_assign_to_params, as a node reads them from the coordinator. */
#include <stdlib.h>

#include "net/wire.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Stepnet__Control *m = sn_wire_unpack_control(data, size);
    if (m == NULL)
        return 0;
    if (m->msg_case ==
        STEPNET__CONTROL__MSG_ASSIGN) { /* a oneof: check the case, as the node does */
        sn_params_t p;
        uint32_t *sources = NULL;
        sn_err_t err = {0};
        if (sn_wire_assign_to_params(m->assign, &p, &sources, &err) == 0)
            free(sources);
    }
    stepnet__control__free_unpacked(m, NULL);
    return 0;
}
