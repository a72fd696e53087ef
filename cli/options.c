/* Option parsing and context construction shared by the stepnet commands (cli). The
 * parsers return 0 or SN_EINVAL with an sn_err_t naming the bad value and what is accepted;
 * cli_parse and cli_ctx_init are the command-boundary wrappers that print it (exit status 2). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/coll/coll.h"
#include "cli/cli.h"
#include "stepnet/schedule_file.h"
#include "stepnet/util.h"

uint64_t cli_default_max_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 4ull << 30;
    return (uint64_t) pages * (uint64_t) page / CLI_MEMORY_FRACTION;
}

int cli_parse_size(const char *name, const char *v, uint64_t *out, sn_err_t *err)
{
    return sn_opts_size(name, v, CLI_MIN_MAX_MEMORY, SN_OPTS_MAX_BYTES, out, err);
}

int cli_file_sink(void *f, const char *data, size_t len)
{
    return fwrite(data, 1, len, f) == len ? 0 : -1;
}

int cli_close_out(FILE *f, const char *path, const char *flag)
{
    int bad_write = ferror(f), e = bad_write ? (errno ? errno : EIO) : 0;
    if (fflush(f) != 0 && e == 0)
        e = errno;
    if (fclose(f) != 0 && e == 0)
        e = errno;
    if (bad_write || e) {
        fprintf(stderr, "stepnet: cannot write '%s' (%s): %s\n", path, flag, strerror(e ? e : EIO));
        return -1;
    }
    return 0;
}

void cli_opts_init(cli_opts_t *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->root = o->msgs = o->m = o->size = o->seed = o->max_slots = o->frags = -1;
    o->progress = -1;
    o->max_memory = cli_default_max_memory();
}

/* --max-memory SIZE (an SN_OPT_FN of the shared table). */
int cli_opt_memory(const sn_opt_t *opt, const char *v, sn_err_t *err)
{
    return cli_parse_size(opt->name, v, opt->ctx, err);
}

/* --max-slots under `stepnet model`, which runs no collective. */
static int opt_refused_by_model(const sn_opt_t *opt, const char *v, sn_err_t *err)
{
    (void) v;
    return sn_err_inval(err, "%s applies to sim, not model", opt->name);
}

/* The options every command shares, into o; *progress is set by --progress and --no-progress.
 * Their lines in --help are in the order of CLI_HELP_SHARED; the table keeps its own, which
 * decides between equally near options when the parser suggests one (sn_opts_suggest). */
#define CLI_SHARED_OPTIONS 22
static void shared_table(cli_opts_t *o, int64_t *progress, sn_opt_t *t)
{
    int model = o->cmd && strcmp(o->cmd, "model") == 0;
    const sn_opt_t shared[CLI_SHARED_OPTIONS] = {
        {.name = "--json",
         .kind = SN_OPT_FLAG,
         .flag = &o->json,
         .help = "one JSON object on one line"},
        {.name = "--progress",
         .kind = SN_OPT_SET,
         .num = progress,
         .lo = 1,
         .help = "progress on stderr (each phase: launch, join, calibration, warm-up,\n"
                 "repetitions with an ETA; bench: each size) even when stderr is not a\n"
                 "terminal; --no-progress: none (default: on a terminal)"},
        {.name = "--no-progress",
         .kind = SN_OPT_SET,
         .num = progress,
         .lo = 0,
         .help = SN_OPT_UNLISTED}, /* on the line of --progress */
        {.name = "--topo",
         .kind = SN_OPT_STR,
         .str = &o->topo,
         .arg = "SPEC",
         .help = "topology, e.g. ring:8, torus:4x4, hypercube:4, 'ering:7:2*ring:5'"},
        {.name = "--coll",
         .kind = SN_OPT_STR,
         .str = &o->coll,
         .arg = "C",
         .help = "bcast, scatter, gather, mnb, te, pmnb, pexchange, sna, pmna,\n"
                 "allreduce, barrier, mna (MPI aliases: broadcast, allgather,\n"
                 "alltoall, reduce, reduce_scatter; barrier: --msgs/--frags 1)"},
        {.name = "--algo",
         .kind = SN_OPT_STR,
         .str = &o->algo,
         .arg = "NAME|auto",
         .help = "algorithm (default auto: the fewest steps, or with --tp the fewest\n"
                 "time units, predicted or, with none, of a dry run); schedule:FILE plays\n"
                 "a schedule file, taking from it the options not given"},
        {.name = "--ports",
         .kind = SN_OPT_STR,
         .str = &o->ports,
         .arg = "single|multi",
         .help = "port model (default multi)",
         .col = 25},
        {.name = "--rx",
         .kind = SN_OPT_STR,
         .str = &o->rx,
         .arg = "one|any",
         .help = "single-port receptions per slot (default one)"},
        {.name = "--duplex",
         .kind = SN_OPT_STR,
         .str = &o->duplex,
         .arg = "full|half",
         .help = "links (default full)"},
        {.name = "--sources",
         .kind = SN_OPT_STR,
         .str = &o->sources,
         .arg = "LIST",
         .help = "sources of pmnb/pexchange (targets of pmna) as ranks: 0,3,5 or 0-7"},
        {.name = "--op",
         .kind = SN_OPT_STR,
         .str = &o->op,
         .arg = "OP",
         .help = "operator of sna, pmna, mna, allreduce, barrier: sum, xor, max,\n"
                 "min, and, or (default sum; barrier max, as its tokens are idempotent)"},
        {.name = "--tp",
         .kind = SN_OPT_STR,
         .str = &o->tp,
         .arg = "T",
         .help = "time of a control slot in time units (default 1), for time_units;\n"
                 "given, auto ranks by (steps - control) / frags + control x tp"},
        {.name = "--root",
         .kind = SN_OPT_INT,
         .num = &o->root,
         .lo = 0,
         .hi = INT32_MAX,
         .arg = "R",
         .help = "root processor of bcast, scatter, gather and sna (default 0); refused\n"
                 "for the other collectives, which have none"},
        {.name = "--msgs",
         .kind = SN_OPT_INT,
         .num = &o->msgs,
         .lo = 1,
         .hi = 1 << 20,
         .arg = "M",
         .help = "packets per source and destination (default 1)"},
        {.name = "--frags",
         .kind = SN_OPT_INT,
         .num = &o->frags,
         .lo = 1,
         .hi = 1 << 16,
         .arg = "F",
         .help = "fragments per packet, each 1/F of a time unit (default 1)"},
        {.name = "--m",
         .kind = SN_OPT_INT,
         .num = &o->m,
         .lo = 1,
         .hi = INT32_MAX,
         .arg = "M",
         .help = "M sources drawn from --seed instead of --sources"},
        {.name = "--size",
         .kind = SN_OPT_SIZE,
         .num = &o->size,
         .lo = 0,
         .hi = 1 << 30,
         .arg = "BYTES",
         .help = "payload bytes per packet, up to 1G (default 8; 64K = 64KiB = 65536)"},
        {.name = "--seed",
         .kind = SN_OPT_INT,
         .num = &o->seed,
         .lo = 0,
         .hi = INT64_MAX,
         .arg = "S",
         .help = "run seed (default 1)"},
        {.name = "--max-memory",
         .kind = SN_OPT_FN,
         .fn = cli_opt_memory,
         .ctx = &o->max_memory,
         .arg = "SIZE",
         .help = "refuse runs estimated to need more (bytes, or K, M, G, T, KiB, ...;\n"
                 "default half the physical memory)"},
        /* sim's slot limit, which no --help lists (docs/usage.md does) */
        model ? (sn_opt_t){.name = "--max-slots",
                           .kind = SN_OPT_FN,
                           .fn = opt_refused_by_model,
                           .help = SN_OPT_UNLISTED}
              : (sn_opt_t){.name = "--max-slots",
                           .kind = SN_OPT_INT,
                           .num = &o->max_slots,
                           .lo = 1,
                           .hi = INT64_MAX,
                           .help = SN_OPT_UNLISTED},
        {0},
    };
    memcpy(t, shared, sizeof shared);
}

int cli_opts_parse_tables(int argc, char **argv, const sn_opt_t *first, const sn_opt_t *second,
                          const sn_help_t *help, sn_err_t *err)
{
    size_t n1 = 0, n2 = 0;
    while (first && first[n1].kind != SN_OPT_END)
        n1++;
    while (second && second[n2].kind != SN_OPT_END)
        n2++;
    int asked = 0;
    sn_opt_t *table = sn_xcalloc(n1 + n2 + 3, sizeof *table);
    if (n1)
        memcpy(table, first, n1 * sizeof *table);
    if (n2)
        memcpy(table + n1, second, n2 * sizeof *table);
    table[n1 + n2] = (sn_opt_t){.name = "--help", .kind = SN_OPT_STOP, .flag = &asked};
    table[n1 + n2 + 1] = (sn_opt_t){.name = "-h", .kind = SN_OPT_STOP, .flag = &asked};
    int rc = sn_opts_parse(argc, argv, table, err);
    free(table);
    /* an option of another command: say which ("sim --reps": an option of run and bench) */
    static const char unknown[] = "unknown option '";
    if (rc < 0 && strncmp(err->msg, unknown, sizeof unknown - 1) == 0) {
        const char *name = err->msg + sizeof unknown - 1;
        size_t len = strcspn(name, "'");
        char which[128];
        if (*cli_commands_with(name, len, help, which, sizeof which)) {
            char opt[64];
            snprintf(opt, sizeof opt, "%.*s", (int) (len < 63 ? len : 63), name);
            sn_err_inval(err,
                         "unknown option '%s': it is an option of %s, not of this command; see "
                         "--help",
                         opt, which);
        }
    }
    if (rc == SN_OPTS_STOP && (rc = sn_opts_help(stdout, help, first, second, err)) == 0)
        return CLI_HELP;
    return rc;
}

int cli_opts_parse(int argc, char **argv, cli_opts_t *o, const sn_opt_t *extra,
                   const sn_help_t *help, sn_err_t *err)
{
    cli_opts_init(o, o->cmd);
    int64_t progress = o->progress;
    sn_opt_t shared[CLI_SHARED_OPTIONS];
    shared_table(o, &progress, shared);
    /* the command's own options first (a name in both is the command's), then the shared ones */
    int rc = cli_opts_parse_tables(argc, argv, extra, shared, help, err);
    if (rc != 0)
        return rc;
    if (progress != o->progress && o->cmd && strcmp(o->cmd, "model") == 0)
        return sn_err_inval(err, "%s applies to sim, not model",
                            progress ? "--progress" : "--no-progress");
    o->progress = (int) progress;
    return 0;
}

int cli_parse(int argc, char **argv, cli_opts_t *o, const sn_help_t *help)
{
    sn_err_t err = {0};
    int rc = cli_opts_parse(argc, argv, o, NULL, help, &err);
    if (rc == CLI_HELP)
        return -1;
    if (rc < 0) {
        cli_err_print("stepnet", &err);
        return EXIT_BADINPUT;
    }
    return 0;
}

const char *cli_ports_name(const sn_params_t *p)
{
    return p->pm.ports == SN_PORTS_SINGLE ? "single" : "multi";
}
const char *cli_rx_name(const sn_params_t *p)
{
    /* multiport never limits receptions: "all", not the single-port default "one" */
    if (p->pm.ports == SN_PORTS_MULTI)
        return "all";
    return p->pm.rx == SN_RX_ANY ? "any" : "one";
}
const char *cli_duplex_name(const sn_params_t *p)
{
    return p->pm.duplex == SN_DUPLEX_HALF ? "half" : "full";
}

/* --sources: ranks as "0,3,5" or ranges "0-7,12", each below nproc. t NULL: only checks them
 * (out and count untouched); otherwise their nodes in t into *out. */
static int parse_sources(const char *s, uint32_t nproc, const sn_topo_t *t, uint32_t **out,
                         uint32_t *count, sn_err_t *err)
{
    uint32_t *v = NULL;
    size_t n = 0, cap = 0;
    uint64_t named = 0;
    char *copy = sn_xstrdup(s), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(tok, '-');
        int64_t lo = 0, hi = 0;
        char name[] = "--sources";
        if (dash == tok || (dash && dash[1] == '\0')) {
            rc = sn_err_inval(
                err, "bad value '%s' for --sources: expected ranks like 0,3,5 or ranges like 0-7",
                tok);
            goto done;
        }
        if (dash) {
            *dash = '\0';
            if ((rc = sn_opts_int(name, tok, 0, (int64_t) nproc - 1, NULL, &lo, err)) ||
                (rc = sn_opts_int(name, dash + 1, lo, (int64_t) nproc - 1, NULL, &hi, err)))
                goto done;
        } else {
            if ((rc = sn_opts_int(name, tok, 0, (int64_t) nproc - 1, NULL, &lo, err)))
                goto done;
            hi = lo;
        }
        named += (uint64_t) (hi - lo + 1);
        for (int64_t r = lo; r <= hi && t != NULL; r++) {
            sn_grow((void **) &v, &cap, n + 1, sizeof *v);
            v[n++] = sn_topo_proc(t, (uint32_t) r);
        }
    }
    if (named == 0) {
        rc = sn_err_inval(err, "--sources '%s' names no processor", s);
        goto done;
    }
done:
    free(copy);
    if (rc || t == NULL) {
        free(v);
        return rc;
    }
    *out = v;
    *count = (uint32_t) n;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return x < y ? -1 : (x > y);
}

/* One of two words for option `flag`: *out = v0 or v1. 0, or SN_EINVAL naming both. */
static int parse_choice(const char *flag, const char *v, const char *w0, int v0, const char *w1,
                        int v1, int *out, sn_err_t *err)
{
    if (strcmp(v, w0) == 0)
        *out = v0;
    else if (strcmp(v, w1) == 0)
        *out = v1;
    else {
        const char *const words[] = {w0, w1};
        const char *near = sn_suggest(v, strlen(v), words, 2);
        if (near)
            return sn_err_inval(err, "bad value '%s' for %s: did you mean %s? expected %s or %s", v,
                                flag, near, w0, w1);
        return sn_err_inval(err, "bad value '%s' for %s: expected %s or %s", v, flag, w0, w1);
    }
    return 0;
}

/* The collectives whose runs read --root: the rooted ones. allreduce and barrier have none (their
 * tree algorithms root the tree at a centre they pick, or where every node is one at the default
 * processor, which changes nothing there); dynbcast's rounds draw their roots at random and are
 * refused elsewhere. */
static int takes_root(sn_coll_t c)
{
    return sn__coll_is_rooted(c);
}

/* --ports, --rx, --duplex and --op into p, --tp into *tp, the --algo name (and its collective and
 * port models) and --sources/--m against each other: every value that needs no topology, so that
 * a bad one is reported before anything large is built. */
static int parse_free_values(const cli_opts_t *o, sn_params_t *p, double *tp, sn_err_t *err)
{
    int rc, v = 0;
    if (o->ports) {
        if ((rc = parse_choice("--ports", o->ports, "multi", SN_PORTS_MULTI, "single",
                               SN_PORTS_SINGLE, &v, err)) < 0)
            return rc;
        p->pm.ports = v;
    }
    if (o->rx) {
        if ((rc = parse_choice("--rx", o->rx, "one", SN_RX_ONE, "any", SN_RX_ANY, &v, err)) < 0)
            return rc;
        p->pm.rx = v;
    }
    if (o->duplex) {
        if ((rc = parse_choice("--duplex", o->duplex, "full", SN_DUPLEX_FULL, "half",
                               SN_DUPLEX_HALF, &v, err)) < 0)
            return rc;
        p->pm.duplex = v;
    }
    if (o->root >= 0 && !takes_root(p->coll)) {
        char list[128];
        return sn_err_inval(err, "--root applies to %s, not %s",
                            sn__coll_names(list, sizeof list, takes_root), sn_coll_name(p->coll));
    }
    if (o->op) {
        if (!sn_coll_is_combining(p->coll))
            return sn_err_inval(err,
                                "--op applies to the combining collectives (sna, pmna, mna, "
                                "allreduce, barrier), not %s",
                                sn_coll_name(p->coll));
        if (sn_op_parse(o->op, &p->op, err) < 0) {
            const char *near = sn_op_suggest(o->op);
            if (near)
                return sn_err_inval(
                    err, "bad value '%s' for --op: did you mean %s? expected " SN_OP_NAMES, o->op,
                    near);
            return sn_err_inval(err, "bad value '%s' for --op: expected " SN_OP_NAMES, o->op);
        }
    }
    if (o->algo && strcmp(o->algo, "auto") != 0 && sn_model_find(o->algo) == NULL &&
        strncmp(o->algo, SN_SCHED_FILE_PREFIX, strlen(SN_SCHED_FILE_PREFIX)) != 0) {
        const char *near = sn_model_suggest(o->algo);
        if (near)
            return sn_err_inval(err,
                                "unknown algorithm '%s' for --algo: did you mean %s? expected "
                                "auto, schedule:FILE or a name that stepnet algos lists",
                                o->algo, near);
        return sn_err_inval(err,
                            "unknown algorithm '%s' for --algo: expected auto, schedule:FILE or a "
                            "name that stepnet algos lists",
                            o->algo);
    }
    if (o->sources && o->m > 0)
        return sn_err_inval(err, "give either --sources or --m, not both");
    *tp = 1.0;
    if (o->tp) {
        char *end;
        errno = 0;
        double x = strtod(o->tp, &end);
        if (errno || end == o->tp || *end != '\0' || !(x >= 0.0 && x <= 1e6))
            return sn_err_inval(err, "bad value '%s' for --tp: expected a number from 0 to 1000000",
                                o->tp);
        *tp = x;
    }
    /* a named algorithm's collective and port models need no topology */
    const sn_algo_t *named =
        o->algo && strcmp(o->algo, "auto") != 0 ? sn_model_find(o->algo) : NULL;
    if (named)
        return sn_model_check_params(named, p, err);
    return 0;
}

/* --root, --m and the ranks of --sources against the processors of --topo, counted without
 * building it (sn_topo_parse_size), so that an out-of-range value is refused before a large
 * topology is built: the one place these ranges are checked (the topology built afterwards has
 * the same processors). Counts nothing when none of them is given (a file: graph would be read
 * twice for nothing). */
static int check_ranks(const cli_opts_t *o, sn_err_t *err)
{
    if (o->root < 0 && o->sources == NULL && o->m <= 0)
        return 0;
    uint64_t nodes, procs;
    char *spec = NULL;
    int rc = sn_topo_parse_size(o->topo, NULL, 0, &nodes, &procs, &spec, err);
    if (rc < 0)
        return rc;
    if (o->root >= (int64_t) procs)
        rc = sn_err_inval(err, "--root %lld is out of range: %s has processors 0 to %llu",
                          (long long) o->root, spec, (unsigned long long) procs - 1);
    else if (o->sources)
        rc = parse_sources(o->sources, (uint32_t) procs, NULL, NULL, NULL, err);
    else if (o->m > (int64_t) procs)
        rc = sn_err_inval(err, "--m %lld is more than the %llu processors of %s", (long long) o->m,
                          (unsigned long long) procs, spec);
    free(spec);
    return rc;
}

/* --msgs, --frags, --size and --seed into p (before the topology is built: sn_params_check_free
 * checks them). */
static void parse_counts(const cli_opts_t *o, sn_params_t *p)
{
    if (o->msgs > 0)
        p->msgs = (uint32_t) o->msgs;
    if (o->frags > 0)
        p->frags = (uint32_t) o->frags;
    if (o->size >= 0)
        p->size = (uint32_t) o->size;
    if (o->seed >= 0)
        p->seed = (uint64_t) o->seed;
}

/* --m M: M distinct processors drawn from the seed (Fisher-Yates over the ranks) into c->sources.
 */
static void draw_sources(const cli_opts_t *o, cli_ctx_t *c)
{
    sn_params_t *p = &c->params;
    uint32_t np = c->topo->nproc; /* at least --m: check_ranks */
    uint32_t *perm = sn_xmalloc((size_t) np * sizeof *perm);
    for (uint32_t i = 0; i < np; i++)
        perm[i] = i;
    uint64_t x = sn_mix64(p->seed ^ 0x736f75726365ULL);
    for (uint32_t i = 0; i < (uint32_t) o->m; i++) {
        x = sn_mix64(x + 0x9e3779b97f4a7c15ULL);
        uint32_t j = i + (uint32_t) (x % (np - i));
        uint32_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    c->sources = sn_xmalloc((size_t) o->m * sizeof *c->sources);
    for (uint32_t i = 0; i < (uint32_t) o->m; i++)
        c->sources[i] = sn_topo_proc(c->topo, perm[i]);
    p->nsources = (uint32_t) o->m;
    free(perm);
}

/* The sources of a partial collective (--sources or --m), sorted and checked for repeats. */
static int build_sources(const cli_opts_t *o, cli_ctx_t *c, sn_err_t *err)
{
    sn_params_t *p = &c->params;
    int rc = 0;
    if (o->sources)
        rc = parse_sources(o->sources, c->topo->nproc, c->topo, &c->sources, &p->nsources, err);
    else if (o->m > 0)
        draw_sources(o, c);
    if (rc < 0 || c->sources == NULL)
        return rc;
    qsort(c->sources, p->nsources, sizeof *c->sources, cmp_u32);
    for (uint32_t i = 1; i < p->nsources; i++)
        if (c->sources[i] == c->sources[i - 1])
            return sn_err_inval(err, "--sources names processor %d twice",
                                sn_topo_rank(c->topo, c->sources[i]));
    p->sources = c->sources;
    return 0;
}

/* A schedule file holds its instance, so --algo schedule:FILE takes from it every option the
 * command line leaves out (the topology, the collective, the port model, op, msgs, frags, size,
 * seed; root and sources once the topology is built: sched_nodes), and refuses one given with
 * another value, naming the flag and the file's value. A relative `file:` path that is not found
 * from here is looked up beside the schedule file. *o is a copy of the command line's options;
 * strings it takes point into f or into *owned (free it). */
static int sched_refuse(sn_err_t *err, const char *path, const char *flag, const char *given,
                        const char *file)
{
    return sn_err_inval(err,
                        "%s %s: the schedule file %s has %s %s; leave %s out to take the file's, "
                        "or give %s %s",
                        flag, given, path, flag, file, flag, flag, file);
}

/* The schedule file's topology where this process finds it: its `file:` graph given by a
 * relative path that is not found from here, but is beside the schedule file at `path`, as that
 * path (malloc'd); NULL when the spec is to be taken as written. */
static char *sched_graph_beside(const char *topo, const char *path)
{
    const char *rel = strncmp(topo, "file:", 5) == 0 ? topo + 5 : NULL;
    const char *slash = strrchr(path, '/');
    if (rel == NULL || rel[0] == '/' || strchr(topo, '*') || access(rel, F_OK) == 0 || !slash)
        return NULL;
    size_t dir = (size_t) (slash - path) + 1, len = 5 + dir + strlen(rel) + 1;
    char *spec = sn_xmalloc(len);
    snprintf(spec, len, "file:%.*s%s", (int) dir, path, rel);
    if (access(spec + 5, F_OK) == 0)
        return spec;
    free(spec);
    return NULL;
}

static int sched_fill(cli_opts_t *o, const sn_sched_file_t *f, const char *path, char **owned,
                      sn_err_t *err)
{
    const sn_params_t *q = &f->params;
    char a[32], b[32];
    *owned = NULL;
    if (o->topo == NULL) {
        *owned = sched_graph_beside(f->topo, path);
        o->topo = *owned ? *owned : f->topo;
    }
    const char *coll = sn_coll_name(q->coll);
    if (o->coll == NULL) {
        o->coll = coll;
    } else {
        sn_coll_t given;
        if (sn_coll_parse(o->coll, &given, err) < 0)
            return SN_EINVAL;
        if (given != q->coll)
            return sched_refuse(err, path, "--coll", o->coll, coll);
    }
    const char *ports = q->pm.ports == SN_PORTS_SINGLE ? "single" : "multi";
    if (o->ports == NULL)
        o->ports = ports;
    else if (strcmp(o->ports, ports) != 0)
        return sched_refuse(err, path, "--ports", o->ports, ports);
    if (q->pm.ports == SN_PORTS_SINGLE) {
        const char *rx = q->pm.rx == SN_RX_ANY ? "any" : "one";
        if (o->rx == NULL)
            o->rx = rx;
        else if (strcmp(o->rx, rx) != 0)
            return sched_refuse(err, path, "--rx", o->rx, rx);
    }
    const char *duplex = q->pm.duplex == SN_DUPLEX_HALF ? "half" : "full";
    if (o->duplex == NULL)
        o->duplex = duplex;
    else if (strcmp(o->duplex, duplex) != 0)
        return sched_refuse(err, path, "--duplex", o->duplex, duplex);
    if (sn_coll_is_combining(q->coll)) {
        const char *op = sn_op_name(q->op);
        if (o->op == NULL)
            o->op = op;
        else if (strcmp(o->op, op) != 0)
            return sched_refuse(err, path, "--op", o->op, op);
    }
#define SCHED_COUNT(flag, field, value)                                                            \
    do {                                                                                           \
        if (o->field < 0) {                                                                        \
            o->field = (int64_t) (value);                                                          \
        } else if ((uint64_t) o->field != (uint64_t) (value)) {                                    \
            snprintf(a, sizeof a, "%lld", (long long) o->field);                                   \
            snprintf(b, sizeof b, "%llu", (unsigned long long) (value));                           \
            return sched_refuse(err, path, flag, a, b);                                            \
        }                                                                                          \
    } while (0)
    SCHED_COUNT("--msgs", msgs, q->msgs);
    SCHED_COUNT("--frags", frags, q->frags);
    SCHED_COUNT("--size", size, q->size);
    SCHED_COUNT("--seed", seed, q->seed);
#undef SCHED_COUNT
    return 0;
}

/* The root and the sources of a schedule file (node ids), once the topology is built: taken when
 * the command line gives none, compared when it does. */
static int sched_nodes(const cli_opts_t *o, sn_sched_file_t *f, const char *path, cli_ctx_t *c,
                       sn_err_t *err)
{
    sn_params_t *p = &c->params;
    const sn_params_t *q = &f->params;
    char a[32], b[32];
    if (sn__coll_is_rooted(p->coll)) {
        if (o->root < 0 && q->root < c->topo->n)
            p->root = q->root;
        else if (o->root >= 0 && p->root != q->root) {
            snprintf(a, sizeof a, "%lld", (long long) o->root);
            snprintf(b, sizeof b, "%d", q->root < c->topo->n ? sn_topo_rank(c->topo, q->root) : -1);
            return sched_refuse(err, path, "--root", a, b);
        }
    }
    if (sn_coll_is_partial(p->coll) && o->sources == NULL && o->m <= 0 && q->nsources > 0) {
        c->sources = sn_xmalloc((size_t) q->nsources * sizeof *c->sources);
        memcpy(c->sources, q->sources, (size_t) q->nsources * sizeof *c->sources);
        p->sources = c->sources;
        p->nsources = q->nsources;
    }
    /* a file: graph named by another path: the same graph if its edges are the same */
    if (strcmp(f->topo, c->topo->spec) != 0 && strncmp(f->topo, "file:", 5) == 0 &&
        c->topo->kind == SN_TOPO_FILE) {
        sn_topo_t *other = NULL;
        sn_err_t e = {0};
        char *beside = sched_graph_beside(f->topo, path);
        int built = sn_topo_parse(beside ? beside : f->topo, &other, &e) == 0;
        free(beside);
        if (built && other->kind == SN_TOPO_FILE) {
            char *x, *y;
            size_t nx, ny;
            sn_topo_file_text(other, &x, &nx);
            sn_topo_file_text(c->topo, &y, &ny);
            if (nx == ny && memcmp(x, y, nx) == 0) { /* the run's spec, for the file's check */
                free(f->topo);
                f->topo = sn_xstrdup(c->topo->spec);
            }
            free(x);
            free(y);
        }
        sn_topo_free(other);
    }
    if (strcmp(f->topo, c->topo->spec) != 0)
        return sched_refuse(err, path, "--topo", o->topo, f->topo);
    return 0;
}

/* The topology and the parameters of the options, before the algorithm: every value that needs
 * no topology first, then the topology within the memory limit, the root and the sources. */
static int build_instance(const cli_opts_t *o, cli_ctx_t *c, uint64_t limit, sn_err_t *err)
{
    if (o->topo == NULL)
        return sn_err_inval(err, "%s needs --topo SPEC (e.g. --topo torus:4x4)", o->cmd);
    if (o->coll == NULL)
        return sn_err_inval(
            err,
            "%s needs --coll C (bcast, scatter, gather, mnb, te, pmnb, pexchange, sna, "
            "pmna, allreduce, barrier, mna)",
            o->cmd);
    sn_coll_t coll;
    int rc;
    if ((rc = sn_coll_parse(o->coll, &coll, err)) < 0)
        return rc;
    sn_params_t *p = &c->params;
    sn_params_default(p, coll);
    if ((rc = parse_free_values(o, p, &c->tp, err)) < 0)
        return rc;
    /* auto ranks by time units when --tp is given, by slots otherwise (over TCP every slot
     * costs one) */
    c->rank_tp = o->tp ? c->tp : SN_MODEL_RANK_SLOTS;
    parse_counts(o, p);
    if ((rc = sn_params_check_free(p, err)) < 0 || (rc = check_ranks(o, err)) < 0 ||
        (rc = sn_topo_parse_budget(o->topo, NULL, 0, limit, &c->topo, err)) < 0)
        return rc;
    /* --root: its range was checked by check_ranks */
    p->root = sn_topo_proc(c->topo, o->root >= 0 ? (uint32_t) o->root : 0);
    return build_sources(o, c, err);
}

/* The memory estimate of the run against --max-memory. */
static int check_memory(const cli_opts_t *o, cli_ctx_t *c, uint64_t limit, sn_err_t *err)
{
    sn_mem_use_t use = SN_MEM_SIM;
    if (o->cmd && strcmp(o->cmd, "model") == 0)
        use = SN_MEM_MODEL;
    else if (o->cmd && (strcmp(o->cmd, "run") == 0 || strcmp(o->cmd, "bench") == 0))
        use = SN_MEM_RUN;
    sn_mem_extra_t extra = {.emulated = use == SN_MEM_RUN && o->link_emulated};
    sn_model_mem_estimate_with(c->topo, &c->params, use, &extra, &c->mem);
    return sn_model_mem_check(c->topo, &c->params, &c->mem, limit, err);
}

int cli_ctx_build(const cli_opts_t *given, cli_ctx_t *c, sn_err_t *err)
{
    memset(c, 0, sizeof *c);
    cli_opts_t filled = *given;
    const cli_opts_t *o = &filled;
    uint64_t limit = given->max_memory ? given->max_memory : cli_default_max_memory();
    const char *sched_path = NULL;
    sn_sched_file_t *sf = NULL;
    char *owned = NULL;
    int rc;
    if (given->algo &&
        strncmp(given->algo, SN_SCHED_FILE_PREFIX, strlen(SN_SCHED_FILE_PREFIX)) == 0) {
        /* run ships the schedule to its nodes; bench sweeps sizes, and a file has one */
        if (given->cmd && strcmp(given->cmd, "bench") == 0)
            return sn_err_inval(err, "--algo %s: schedule files play in sim and run, not in bench",
                                given->algo);
        sched_path = given->algo + strlen(SN_SCHED_FILE_PREFIX);
        if ((rc = sn_sched_file_read(sched_path, limit, &sf, err)) < 0)
            return rc;
        if ((rc = sched_fill(&filled, sf, sched_path, &owned, err)) < 0)
            goto out;
    }
    rc = build_instance(o, c, limit, err);
    if (rc == 0 && sf && (rc = sched_nodes(o, sf, sched_path, c, err)) == 0) {
        c->sched_path = sn_xstrdup(sched_path);
        c->sched_algo = sf->algorithm ? sn_xstrdup(sf->algorithm) : NULL;
    }
    if (rc == 0 && (rc = sn_params_check(c->topo, &c->params, err)) == 0)
        rc = check_memory(o, c, limit, err);
    if (rc == 0 && sf) {
        rc = sn_sched_file_select_parsed(sf, sched_path, c->topo, &c->params, &c->algo, &c->plan,
                                         &c->predicted, err);
        sf = NULL;
    } else if (rc == 0) {
        rc = sn_model_select_tp(o->algo, c->topo, &c->params, c->rank_tp, &c->algo, &c->plan,
                                &c->predicted, err);
    }
    if (rc == 0)
        rc = sn_model_bounds(c->topo, &c->params, &c->bounds, err);
out:
    sn_sched_file_free(sf);
    free(owned);
    return rc;
}

int cli_ctx_init(const cli_opts_t *o, cli_ctx_t *c)
{
    sn_err_t err = {0};
    if (cli_ctx_build(o, c, &err) < 0) {
        cli_err_print("stepnet", &err);
        return EXIT_BADINPUT;
    }
    return 0;
}

int cli_parse_real(const char *name, const char *v, double dflt, double lo, double hi, double *out,
                   sn_err_t *err)
{
    if (v == NULL) {
        *out = dflt;
        return 0;
    }
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end != '\0' || !(x >= lo && x <= hi))
        return sn_err_inval(err, "bad value '%s' for %s: expected a number from %g to %g", v, name,
                            lo, hi);
    *out = x;
    return 0;
}

double cli_time_units(const cli_ctx_t *c, uint64_t steps, uint64_t control_slots)
{
    return sn_model_time_units(&c->params, c->tp, steps, control_slots);
}

void cli_ctx_free(cli_ctx_t *c)
{
    if (c->algo && c->plan)
        c->algo->plan_free(c->plan);
    sn_topo_free(c->topo);
    free(c->sources);
    free(c->sched_path);
    free(c->sched_algo);
    memset(c, 0, sizeof *c);
}
