/* The rank a job launcher gives a process (proc/): `stepnet-node --id auto` reads it from the
 * environment of Open MPI's mpirun, MPICH's hydra (PMI or PMIx) or Slurm's srun. Pure: the
 * environment is read through a function the caller passes (getenv, or a table in the tests). */
#ifndef STEPNET_PROC_RANK_ENV_H
#define STEPNET_PROC_RANK_ENV_H

#include <stdint.h>

#include "stepnet/error.h"

/* The variables, in the order they are tried: the first one set decides. Launcher-specific ones
 * come first: an mpirun started inside a Slurm allocation inherits SLURM_PROCID, which is the
 * rank of the mpirun step, not of the process. */
#define SN_RANK_ENV_VARS "OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID"

/* The rank from the first of SN_RANK_ENV_VARS that `get` finds set, into *rank; *var gets the
 * variable's name (a static string). 0; SN_EINVAL with err naming the variable and its value when
 * it is not a decimal integer from 0 to 2^30, or naming the variables when none is set. */
int sn_rank_env_read(char *(*get)(const char *name), int32_t *rank, const char **var,
                     sn_err_t *err);

#endif
