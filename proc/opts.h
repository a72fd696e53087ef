/* Command-line options (proc/): one table-driven parser for both programs, `stepnet` and
 * `stepnet-node`. A program describes its options as a table of sn_opt_t; sn_opts_parse walks argv
 * once, stores every value where its entry says, and fails with one line naming the option, the
 * value and what is accepted; sn_opts_help writes the option lines of --help from the same tables,
 * between the program's prose. */
#ifndef STEPNET_PROC_OPTS_H
#define STEPNET_PROC_OPTS_H

#include <stdint.h>
#include <stdio.h>

#include "stepnet/error.h"

/* sn_opts_parse's return after an option of kind SN_OPT_STOP (--help, --version). */
#define SN_OPTS_STOP 1

/* The largest byte count sn_opts_bytes reads (1024 TiB): far above any memory or packet. */
#define SN_OPTS_MAX_BYTES (1ull << 50)

typedef struct sn_opt_s sn_opt_t;

/* A value parser of kind SN_OPT_FN: reads `value` (never NULL) for option `opt` into what
 * opt->ctx points to. 0, or a negative code with err naming the value and what is accepted. */
typedef int (*sn_opt_fn)(const sn_opt_t *opt, const char *value, sn_err_t *err);

typedef enum {
    SN_OPT_END = 0, /* the zeroed entry that ends a table */
    SN_OPT_FLAG,    /* no value: *flag = 1; refuses --name=value */
    SN_OPT_STOP,    /* a flag that ends parsing at once (--help): *flag = 1, SN_OPTS_STOP */
    SN_OPT_SET,     /* a flag that stores `lo` into *num (--progress / --no-progress: the last
                       one given wins); refuses --name=value */
    SN_OPT_INT,     /* an integer from lo to hi into *num; `unit` names it ("a port"), NULL:
                       "an integer" */
    SN_OPT_SIZE,    /* a byte count from lo to hi into *num, read by sn_opts_bytes */
    SN_OPT_STR,     /* the value as given into *str (borrowed from argv) */
    SN_OPT_FN,      /* the value through fn(opt, value, err), for forms like auto|N or LO-HI */
    SN_OPT_DOC      /* no option: a line of --help alone, for a second form of an option listed
                       apart from its first ("--nodes ADDR,..." after "--nodes local|join") or
                       for two options on one line ("-h, --help"); the parser skips it, a help
                       layout names it by its label */
} sn_opt_kind_t;

/* The help of an option that no --help lists: an alias, or an option described on another entry's
 * line (--no-progress on that of --progress). */
#define SN_OPT_UNLISTED ""

/* No option line of --help is wider than this (sn_opts_help refuses one that would be). */
#define SN_OPTS_HELP_WIDTH 100

/* One option. `name` is the whole spelling ("--reps", or "-h"); an option spelled two ways takes
 * two entries. Only the members of its kind are read, and the --help members by sn_opts_help.
 * Tables end with a zeroed entry. */
struct sn_opt_s {
    const char *name;
    sn_opt_kind_t kind;
    int *flag;        /* SN_OPT_FLAG, SN_OPT_STOP */
    int64_t *num;     /* SN_OPT_INT, SN_OPT_SET */
    int64_t lo, hi;   /* SN_OPT_INT, SN_OPT_SIZE: the accepted range, inclusive; SN_OPT_SET:
                         lo is stored */
    const char *unit; /* SN_OPT_INT: what the number is, for the error; NULL: "an integer" */
    const char **str; /* SN_OPT_STR */
    sn_opt_fn fn;     /* SN_OPT_FN */
    void *ctx;        /* SN_OPT_FN: where fn stores the value */
    /* --help: the line "  NAME ARG" (its label), then the description from column `col` (0:
     * the layout's; two spaces after the label when that reaches the column), its further lines
     * from column `hang` (0: the layout's). */
    const char *arg;  /* the value's name: "N", "FILE", "single|multi"; NULL: a flag */
    const char *help; /* the description as printed, its lines separated by '\n' (no '\n' at the
                         end); every entry has one (sn_opts_help refuses NULL), SN_OPT_UNLISTED
                         when no --help lists it */
    int col, hang;
};

/* One piece of a --help text: prose printed as is (`text`), or the lines of the entries that
 * `lines` names (NULL-terminated; an option by its name, an SN_OPT_DOC entry by its label), in
 * that order, their descriptions from column `col`. The tables keep an order of their own (it
 * decides between equally near options in sn_opts_suggest); the layout gives the order of the
 * help. A layout is an array of pieces ending with a zeroed one. */
typedef struct sn_help_s {
    const char *text;
    const char *const *lines;
    int col;
} sn_help_t;

/* Parses argv[0..argc-1] (the arguments after the program or command name) against `table`.
 * Every option with a value takes `--name value` and `--name=value`; a flag takes neither form of
 * value. Values are borrowed from argv. Returns 0; SN_OPTS_STOP as soon as an SN_OPT_STOP option
 * is met (the arguments after it are not read); SN_EINVAL with err ("see --help" where useful)
 * for an argument that is not an option, an unknown option, a flag given a value, a missing
 * value, or a value its entry refuses (an unknown option near a known one: "unknown option
 * '--port': did you mean --ports? see --help", sn_opts_suggest); an SN_OPT_FN's own code and
 * message. Values stored before an error stay stored. May be called any time; keeps no state. */
int sn_opts_parse(int argc, char *const *argv, const sn_opt_t *table, sn_err_t *err);

/* Writes the --help text of `layout` to f: its prose, and for each name a piece lists the lines of
 * that entry, looked up in `first`, then in `second` (either table may be NULL). Checks the
 * tables and the layout before writing anything: SN_EINVAL with err naming the entry when one has
 * no help (NULL: every option must say what it does, or SN_OPT_UNLISTED), a help text ends with a
 * newline, a listed name is in neither table or is SN_OPT_UNLISTED, or a line would be wider than
 * SN_OPTS_HELP_WIDTH; 0 once written. */
int sn_opts_help(FILE *f, const sn_help_t *layout, const sn_opt_t *first, const sn_opt_t *second,
                 sn_err_t *err);

/* The option of `table` nearest to the first len characters of `name` (an unknown option), when
 * it is one edit away (two for names of six letters or more after the dashes), for "did you mean
 * --ports?"; NULL when none is that close. The first of equally near options wins. */
const char *sn_opts_suggest(const sn_opt_t *table, const char *name, size_t len);

/* A decimal integer from lo to hi: all of `v`, an optional '-' and digits (no spaces, '+' or
 * trailing text). 0 with *out; SN_EINVAL with err "bad value 'V' for NAME: expected UNIT from LO
 * to HI" (UNIT NULL: "an integer"), *out untouched. */
int sn_opts_int(const char *name, const char *v, int64_t lo, int64_t hi, const char *unit,
                int64_t *out, sn_err_t *err);

/* What every size option accepts, for messages. */
#define SN_OPTS_BYTES_FORMS                                                                        \
    "digits with an optional K, M, G, T or KiB, MiB, GiB, TiB; 1K = 1KiB = 1024 bytes"

/* The one reader of byte counts, for every size option of both programs and each size of
 * --sizes: the characters [s, e) as digits with an optional suffix K (or k), M, G, T, KiB, MiB, GiB
 * or TiB, each a power of 1024. 0 with *out; -1 (*out untouched) for anything else or a count
 * above 2^60. */
int sn_opts_bytes(const char *s, const char *e, uint64_t *out);

/* A byte count from lo to hi (sn_opts_bytes over all of `v`). 0 with *out; SN_EINVAL with err
 * "bad value 'V' for NAME: expected a size in bytes from LO to HI (SN_OPTS_BYTES_FORMS)", LO and
 * HI written with the largest suffix that divides them. */
int sn_opts_size(const char *name, const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
                 sn_err_t *err);

#endif
