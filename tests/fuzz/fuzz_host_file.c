/* Fuzz target (tests/fuzz): the hostfile of `stepnet run --hosts FILE` (launch/hostfile.c,
 * sn_launch_hostfile_parse), with the input as the file's bytes, NUL bytes included (the parser
 * refuses them). An accepted file's hosts are written as messages write them and take every
 * node of a run as large as their slots (at most 4096) in both placements; the same bytes, up to a
 * NUL, are also parsed as a `--hosts` list (sn_launch_hostlist_parse). */
#include <stdlib.h>
#include <string.h>

#include "launch/hostfile.h"
#include "tests/fuzz/fuzz.h"

/* Places n ranks on the hosts of hl both ways and checks what the placement promises. */
static void place(const sn_hostlist_t *hl)
{
    uint64_t total = 0;
    for (size_t h = 0; h < hl->n; h++)
        total += hl->hosts[h].slots;
    uint32_t n = total < 4096 ? (uint32_t) total : 4096;
    uint32_t *rank_host = malloc(((size_t) n + 1) * sizeof *rank_host);
    uint32_t *used = calloc(hl->n, sizeof *used);
    if (rank_host == NULL || used == NULL)
        abort();
    for (int by = SN_MAP_BY_SLOT; by <= SN_MAP_BY_NODE; by++) {
        sn_err_t err = {0};
        if (sn_launch_hosts_place(hl, n, (sn_map_by_t) by, rank_host, &err) != 0)
            abort(); /* the hosts offer n slots */
        memset(used, 0, hl->n * sizeof *used);
        for (uint32_t r = 0; r < n; r++)
            if (rank_host[r] >= hl->n || ++used[rank_host[r]] > hl->hosts[rank_host[r]].slots)
                abort();
    }
    /* one node more than the slots: refused */
    sn_err_t err = {0};
    if (total < 4096 && sn_launch_hosts_place(hl, n + 1, SN_MAP_BY_SLOT, rank_host, &err) == 0)
        abort();
    free(used);
    free(rank_host);
}

static void check(const sn_hostlist_t *hl)
{
    char buf[SN_HOST_MAX_USER + SN_HOST_MAX_NAME + 16];
    for (size_t h = 0; h < hl->n; h++) {
        const sn_host_t *x = &hl->hosts[h];
        if (x->name[0] == '\0' || x->slots < 1 || x->slots > SN_HOST_MAX_SLOTS)
            abort();
        sn_launch_host_format(x, buf, sizeof buf);
    }
    place(hl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > SN_HOST_MAX_TEXT + 1)
        return 0;
    sn_hostlist_t hl;
    sn_err_t err = {0};
    if (sn_launch_hostfile_parse((const char *) data, size, "hosts", &hl, &err) == 0) {
        if (hl.n == 0 || hl.n > SN_HOST_MAX_HOSTS)
            abort();
        check(&hl);
        sn_launch_hostlist_free(&hl);
    }
    char *list = malloc(size + 1);
    if (list == NULL)
        return 0;
    memcpy(list, data, size);
    list[size] = '\0';
    if (sn_launch_hostlist_parse(list, &hl, &err) == 0) {
        check(&hl);
        sn_launch_hostlist_free(&hl);
    }
    free(list);
    return 0;
}
