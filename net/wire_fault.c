/* Injected faults (net/): the names of the fault kinds and the parser of KIND@SLOT
 * (wire_fault.h), shared by the command line that checks --fault and the node that acts on it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/wire_fault.h"

static const char *const fault_names[] = {"none",
#define SN_FAULT_NAME(e, name, what) name,
                                          SN_FAULT_MAP(SN_FAULT_NAME)
#undef SN_FAULT_NAME
};

const char *sn_wire_fault_name(sn_fault_kind_t kind)
{
    return (size_t) kind < sizeof fault_names / sizeof fault_names[0] ? fault_names[kind] : "none";
}

int sn_wire_fault_parse(const char *spec, sn_fault_t *out, sn_err_t *err)
{
    const char *at = strchr(spec, '@');
    size_t klen = at ? (size_t) (at - spec) : 0;
    out->kind = SN_FAULT_NONE;
    for (size_t k = 1; at && k < sizeof fault_names / sizeof fault_names[0]; k++)
        if (strlen(fault_names[k]) == klen && strncmp(spec, fault_names[k], klen) == 0)
            out->kind = (sn_fault_kind_t) k;
    char *end = NULL;
    unsigned long long slot = 0;
    if (at && at[1] >= '0' && at[1] <= '9') {
        errno = 0;
        slot = strtoull(at + 1, &end, 10);
        if (errno != 0 || *end != '\0')
            slot = 0;
    }
    if (out->kind == SN_FAULT_NONE || slot == 0) {
        char kinds[128] = "";
        for (size_t k = 1; k < sizeof fault_names / sizeof fault_names[0]; k++)
            snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", k > 1 ? ", " : "",
                     fault_names[k]);
        return sn_err_set(err, SN_EINVAL,
                          "bad fault '%s': expected KIND@SLOT with SLOT >= 1 and KIND one of %s",
                          spec, kinds);
    }
    out->slot = slot;
    return 0;
}
