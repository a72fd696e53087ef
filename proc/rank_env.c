/* The rank a job launcher gives a process (proc/): Open MPI (OMPI_COMM_WORLD_RANK), PMIx
 * (PMIX_RANK), MPICH's hydra and other PMI-1/2 launchers (PMI_RANK), Slurm's srun (SLURM_PROCID).
 * Used by `stepnet-node --id auto`; unit-tested with a fake environment. */
#include <string.h>

#include "proc/rank_env.h"

#define RANK_MAX (1L << 30) /* the largest --id stepnet-node accepts */

int sn_rank_env_read(char *(*get)(const char *name), int32_t *rank, const char **var, sn_err_t *err)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = get(vars[i]);
        if (v == NULL)
            continue;
        *var = vars[i];
        long x = 0;
        size_t len = strlen(v);
        int ok = len > 0 && len <= 10;
        for (size_t k = 0; ok && k < len; k++) {
            ok = v[k] >= '0' && v[k] <= '9';
            x = x * 10 + (v[k] - '0');
        }
        if (!ok || x > RANK_MAX)
            return sn_err_set(err, SN_EINVAL,
                              "--id auto: bad value '%.32s' of %s: expected a rank from 0 to %ld",
                              v, vars[i], RANK_MAX);
        *rank = (int32_t) x;
        return 0;
    }
    *var = NULL;
    return sn_err_set(err, SN_EINVAL,
                      "--id auto: no launcher rank in the environment (looked for " SN_RANK_ENV_VARS
                      "); start the node with mpirun or srun, or give --id N");
}
