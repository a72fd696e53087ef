/* Schedule files (core/model/schedule_file.c): an explicit schedule as data, in the versioned JSON
 * format of docs/schedule.md ("format": "stepnet-schedule", "version": 1). `stepnet export`
 * writes the schedule an algorithm plays in the simulator; `--algo schedule:FILE` plays one after
 * checking it against the port model, the packets each node holds and the collective's expected
 * deliveries. Every collective but dynbcast: for a combining one (sna, pmna, mna, allreduce,
 * barrier) each transmission of a combined packet lists its operands, the processors whose
 * contributions it combines. */
#ifndef STEPNET_SCHEDULE_FILE_H
#define STEPNET_SCHEDULE_FILE_H

#include <stdint.h>
#include <stdio.h>

#include "stepnet/algo.h"
#include "stepnet/error.h"
#include "stepnet/topo.h"

/* The prefix of --algo that plays a schedule file: schedule:FILE. */
#define SN_SCHED_FILE_PREFIX "schedule:"

/* Bytes of memory the parser may use per byte of file (the parsed values, the transmissions and
 * the checker's tables): what a file's size is checked against --max-memory with. */
#define SN_SCHED_FILE_MEM_PER_BYTE 64u

/* The largest schedule file read whatever --max-memory says: 1 GiB. */
#define SN_SCHED_FILE_MAX_BYTES (1ull << 30)

/* The fewest bytes a transmission takes in a file sn_sched_file_write writes (its line with every
 * number one digit long is longer; test_schedule_file checks it): how many transmissions a file
 * of at most N bytes can hold, at most N / SN_SCHED_FILE_MIN_LINE, known before one is recorded. */
#define SN_SCHED_FILE_MIN_LINE 64u

/* The most transmissions a schedule file can hold and still be read back within `max_memory`
 * (0: no memory limit) and, when `assign`, still travel in a run's assignment
 * (SN_SCHED_FILE_MAX_ASSIGN, as synth plays back what it writes); what
 * sn_sched_record_max records at most for export and synth. */
uint64_t sn_sched_file_max_transmissions(uint64_t max_memory, int assign);

/* The operands of a schedule's combined transmissions, in the schedule's order (by slot, node,
 * port): transmission i combines the contributions of the processors id[first[i] ..
 * first[i+1]), ascending; an empty list for a packet that combines nothing (control). */
typedef struct sn_sched_ops_s {
    uint32_t *id;
    size_t *first; /* [n + 1]; NULL when the collective does not combine */
} sn_sched_ops_t;

/* What a schedule file says: the instance and every transmission, sorted by (slot, node, port). */
typedef struct sn_sched_file_s {
    char *topo;         /* the topology spec */
    char *algorithm;    /* who played it, as recorded (NULL when the file does not say) */
    sn_params_t params; /* collective, port model, root, msgs, frags, size, seed, sources, op */
    uint32_t *sources;  /* owned; params.sources points here */
    sn_sched_t sched;   /* the transmissions (sched.algo NULL) and the number of slots */
    sn_sched_ops_t ops; /* combining collectives: the operands of each transmission */
} sn_sched_file_t;

/* 1 for the collectives a schedule file may hold (every one but dynbcast). */
int sn_sched_file_supports(sn_coll_t coll);

/* Where a schedule file's text goes, in pieces of at most a few KiB: the caller's file, a buffer.
 * 0, or a negative code that stops the writing. */
typedef int (*sn_sched_sink_t)(void *ctx, const char *data, size_t len);

/* Writes schedule s of (t, p), played by algorithm `algo` (a name, for the record), as a schedule
 * file to sink(ctx, ...); `ops` the operands of its transmissions when the collective combines
 * (else NULL). 0; SN_EINVAL naming a collective files do not hold or a combining schedule without
 * operands (nothing written); or the sink's code, with err "cannot write the schedule", when the
 * sink failed (what was written before stays). */
int sn_sched_file_write(sn_sched_sink_t sink, void *ctx, const sn_topo_t *t, const sn_params_t *p,
                        const char *algo, const sn_sched_t *s, const sn_sched_ops_t *ops,
                        sn_err_t *err);

/* The same into *text (malloc'd, NUL-terminated; the caller frees it), its length in *len; NULL
 * and 0 on failure. */
int sn_sched_file_format(const sn_topo_t *t, const sn_params_t *p, const char *algo,
                         const sn_sched_t *s, const sn_sched_ops_t *ops, char **text, size_t *len,
                         sn_err_t *err);

/* The most operands (summed over transmissions) a recorded combining schedule may list. */
#define SN_SCHED_MAX_OPERANDS (1ull << 26)

/* Combining collectives: the operands of each transmission of s, a schedule that `algo` plays
 * for (t, p) (sn_sched_record), found by replaying the algorithm under provenance tracing
 * (sn_params_t.provenance), one run per 64 node ids. 0, or SN_EALGO when the traced runs do not
 * send what s sends (the algorithm's schedule depends on the values), SN_ERANGE above
 * SN_SCHED_MAX_OPERANDS, or the run's error. Free with sn_sched_ops_free. */
int sn_sched_record_operands(const sn_topo_t *t, const sn_params_t *p, const char *algo,
                             const sn_sched_t *s, sn_sched_ops_t *ops, sn_err_t *err);

void sn_sched_ops_free(sn_sched_ops_t *ops);

/* Parses the text of a schedule file (len bytes, need not be NUL-terminated) into *out. Every
 * count is bounded by the text's length, so the memory used is at most
 * SN_SCHED_FILE_MEM_PER_BYTE times len. 0, or SN_EINVAL with err naming the byte offset or field
 * and what is accepted. Free with sn_sched_file_free. */
int sn_sched_file_parse(const char *text, size_t len, sn_sched_file_t **out, sn_err_t *err);

/* Reads and parses file `path`, first refusing (SN_ERANGE) a file whose size times
 * SN_SCHED_FILE_MEM_PER_BYTE exceeds max_memory (0: only SN_SCHED_FILE_MAX_BYTES). Opened without
 * blocking and refused (SN_EINVAL) unless it is a regular file: a FIFO or a device is never
 * waited on. */
int sn_sched_file_read(const char *path, uint64_t max_memory, sn_sched_file_t **out, sn_err_t *err);

/* Checks the file against the run: the topology and the parameters of (t, p) must be the file's,
 * and the transmissions a valid schedule of the collective: every node and port exists and leads
 * where the file says, the port model holds in every slot, a node sends only data packets it
 * originates or has received in an earlier slot, and every expected delivery happens. 0, or
 * SN_EINVAL (the file does not match the run) or SN_EPORT / SN_EALGO / SN_EVERIFY with err naming
 * the slot, node, link and rule broken. */
int sn_sched_file_check(const sn_sched_file_t *f, const sn_topo_t *t, const sn_params_t *p,
                        sn_err_t *err);

void sn_sched_file_free(sn_sched_file_t *f);

/* --algo schedule:FILE: reads `path` (bounded by max_memory), checks it against (t, p) and builds
 * the plan of the algorithm that plays it (predicted: the file's slots). */
int sn_sched_file_select(const char *path, uint64_t max_memory, const sn_topo_t *t,
                         const sn_params_t *p, const sn_algo_t **algo, void **plan,
                         int64_t *predicted, sn_err_t *err);

/* sn_sched_file_select for a file already read (sn_sched_file_read of `path`, named in the
 * messages): takes f over and frees it, whatever the outcome. */
int sn_sched_file_select_parsed(sn_sched_file_t *f, const char *path, const sn_topo_t *t,
                                const sn_params_t *p, const sn_algo_t **algo, void **plan,
                                int64_t *predicted, sn_err_t *err);

/* ---- over TCP: every node of `stepnet run` receives the schedule in its assignment ------- */

/* The most bytes of schedule text an assignment carries (as for a file: graph's edge list). */
#define SN_SCHED_FILE_MAX_ASSIGN (64u << 20)

/* When `a` is the algorithm that plays schedule files: the canonical text of the schedule its
 * plan plays, for (t, p), into *text (malloc'd) and *len, which a coordinator sends every node.
 * Otherwise *text is NULL. 0, or SN_EINVAL when the text is longer than an assignment carries. */
int sn_sched_file_text(const sn_algo_t *a, const void *plan, const sn_topo_t *t,
                       const sn_params_t *p, char **text, size_t *len, sn_err_t *err);

/* A node's side: parses the text (at most SN_SCHED_FILE_MAX_ASSIGN bytes), checks it against
 * (t, p) as sn_sched_file_check does and builds the plan of the algorithm that plays it. */
int sn_sched_file_plan_text(const char *text, size_t len, const sn_topo_t *t, const sn_params_t *p,
                            const sn_algo_t **algo, void **plan, sn_err_t *err);

#endif
