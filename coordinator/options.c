/* Option parsing and context construction shared by the stepnet commands (coordinator). Every bad
 * value gets one line on stderr that names it and says what is accepted (exit status 2). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stepnet/util.h"

static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "stepnet: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return EXIT_BADINPUT;
}

static int parse_int(const char *name, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end != '\0' || x < lo || x > hi) {
        fprintf(stderr, "stepnet: bad value '%s' for %s: expected an integer from %lld to %lld\n",
                v, name, (long long) lo, (long long) hi);
        return EXIT_BADINPUT;
    }
    *out = x;
    return 0;
}

int cli_parse(int argc, char **argv, cli_opts_t *o, const char *usage)
{
    const char *cmd = o->cmd;
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->root = o->msgs = o->m = o->size = o->seed = o->max_slots = -1;
    o->progress = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--json=", 7) == 0 || strncmp(a, "--help=", 7) == 0 ||
            strncmp(a, "--progress=", 11) == 0 || strncmp(a, "--no-progress=", 14) == 0)
            return bad("option '%s' takes no value%s; see --help", a, "");
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return -1;
        }
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (strcmp(a, "--progress") == 0 || strcmp(a, "--no-progress") == 0) {
            if (o->cmd && strcmp(o->cmd, "model") == 0)
                return bad("%s applies to sim, not model%s", a, "");
            o->progress = strcmp(a, "--progress") == 0;
            continue;
        }
        if (strncmp(a, "--", 2) != 0)
            return bad("unexpected argument '%s'%s; see --help", a, "");
        /* --name value or --name=value */
        char name[32];
        const char *val;
        const char *eq = strchr(a, '=');
        if (eq) {
            size_t len = (size_t) (eq - a);
            if (len >= sizeof name)
                return bad("unknown option '%s'%s; see --help", a, "");
            memcpy(name, a, len);
            name[len] = '\0';
            val = eq + 1;
        } else {
            if (strlen(a) >= sizeof name)
                return bad("unknown option '%s'%s; see --help", a, "");
            strcpy(name, a);
            if (i + 1 >= argc)
                return bad("option %s needs a value%s", a, "");
            val = argv[++i];
        }
        int rc = 0;
        if (strcmp(name, "--topo") == 0)
            o->topo = val;
        else if (strcmp(name, "--coll") == 0)
            o->coll = val;
        else if (strcmp(name, "--algo") == 0)
            o->algo = val;
        else if (strcmp(name, "--ports") == 0)
            o->ports = val;
        else if (strcmp(name, "--rx") == 0)
            o->rx = val;
        else if (strcmp(name, "--duplex") == 0)
            o->duplex = val;
        else if (strcmp(name, "--sources") == 0)
            o->sources = val;
        else if (strcmp(name, "--root") == 0)
            rc = parse_int("--root", val, 0, INT32_MAX, &o->root);
        else if (strcmp(name, "--msgs") == 0)
            rc = parse_int("--msgs", val, 1, 1 << 20, &o->msgs);
        else if (strcmp(name, "--m") == 0)
            rc = parse_int("--m", val, 1, INT32_MAX, &o->m);
        else if (strcmp(name, "--size") == 0)
            rc = parse_int("--size", val, 0, 1 << 30, &o->size);
        else if (strcmp(name, "--seed") == 0)
            rc = parse_int("--seed", val, 0, INT64_MAX, &o->seed);
        else if (strcmp(name, "--max-slots") == 0 && o->cmd && strcmp(o->cmd, "model") == 0)
            return bad("--max-slots applies to sim, not %s%s", o->cmd, "");
        else if (strcmp(name, "--max-slots") == 0)
            rc = parse_int("--max-slots", val, 1, INT64_MAX, &o->max_slots);
        else
            return bad("unknown option '%s'%s; see --help", name, "");
        if (rc)
            return rc;
    }
    return 0;
}

const char *cli_ports_name(const sn_params_t *p)
{
    return p->pm.ports == SN_PORTS_SINGLE ? "single" : "multi";
}
const char *cli_rx_name(const sn_params_t *p)
{
    return p->pm.rx == SN_RX_ANY ? "any" : "one";
}
const char *cli_duplex_name(const sn_params_t *p)
{
    return p->pm.duplex == SN_DUPLEX_HALF ? "half" : "full";
}

/* --sources: ranks as "0,3,5" or ranges "0-7,12". */
static int parse_sources(const char *s, const sn_topo_t *t, uint32_t **out, uint32_t *count)
{
    uint32_t *v = NULL;
    size_t n = 0, cap = 0;
    char *copy = sn_xstrdup(s), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(tok, '-');
        int64_t lo, hi;
        char name[] = "--sources";
        if (dash == tok || (dash && dash[1] == '\0')) {
            rc = bad("bad value '%s' for --sources: expected ranks like 0,3,5 or ranges like 0-7%s",
                     tok, "");
            goto done;
        }
        if (dash) {
            *dash = '\0';
            if ((rc = parse_int(name, tok, 0, (int64_t) t->nproc - 1, &lo)) ||
                (rc = parse_int(name, dash + 1, lo, (int64_t) t->nproc - 1, &hi)))
                goto done;
        } else {
            if ((rc = parse_int(name, tok, 0, (int64_t) t->nproc - 1, &lo)))
                goto done;
            hi = lo;
        }
        for (int64_t r = lo; r <= hi; r++) {
            sn_grow((void **) &v, &cap, n + 1, sizeof *v);
            v[n++] = sn_topo_proc(t, (uint32_t) r);
        }
    }
    if (n == 0) {
        rc = bad("--sources '%s' names no processor%s", s, "");
        goto done;
    }
done:
    free(copy);
    if (rc) {
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

int cli_ctx_init(const cli_opts_t *o, cli_ctx_t *c)
{
    memset(c, 0, sizeof *c);
    if (o->topo == NULL)
        return bad("%s needs --topo SPEC (e.g. --topo torus:4x4)%s", o->cmd, "");
    if (o->coll == NULL)
        return bad("%s needs --coll C (bcast, scatter, gather, mnb, te, pmnb, pexchange)%s", o->cmd,
                   "");
    sn_err_t err = {0};
    sn_coll_t coll;
    if (sn_coll_parse(o->coll, &coll, &err) < 0)
        return bad("%s%s", err.msg, "");
    if (sn_topo_parse(o->topo, &c->topo, &err) < 0)
        return bad("%s%s", err.msg, "");
    sn_params_t *p = &c->params;
    sn_params_default(p, coll);
    if (o->ports) {
        if (strcmp(o->ports, "multi") == 0)
            p->pm.ports = SN_PORTS_MULTI;
        else if (strcmp(o->ports, "single") == 0)
            p->pm.ports = SN_PORTS_SINGLE;
        else
            return bad("bad value '%s' for --ports: expected multi or single%s", o->ports, "");
    }
    if (o->rx) {
        if (strcmp(o->rx, "one") == 0)
            p->pm.rx = SN_RX_ONE;
        else if (strcmp(o->rx, "any") == 0)
            p->pm.rx = SN_RX_ANY;
        else
            return bad("bad value '%s' for --rx: expected one or any%s", o->rx, "");
    }
    if (o->duplex) {
        if (strcmp(o->duplex, "full") == 0)
            p->pm.duplex = SN_DUPLEX_FULL;
        else if (strcmp(o->duplex, "half") == 0)
            p->pm.duplex = SN_DUPLEX_HALF;
        else
            return bad("bad value '%s' for --duplex: expected full or half%s", o->duplex, "");
    }
    if (o->root >= 0) {
        if (o->root >= (int64_t) c->topo->nproc) {
            fprintf(stderr, "stepnet: --root %lld is out of range: %s has processors 0 to %u\n",
                    (long long) o->root, c->topo->spec, c->topo->nproc - 1);
            return EXIT_BADINPUT;
        }
        p->root = sn_topo_proc(c->topo, (uint32_t) o->root);
    } else {
        p->root = sn_topo_proc(c->topo, 0);
    }
    if (o->msgs > 0)
        p->msgs = (uint32_t) o->msgs;
    if (o->size >= 0)
        p->size = (uint32_t) o->size;
    if (o->seed >= 0)
        p->seed = (uint64_t) o->seed;
    if (o->sources && o->m > 0)
        return bad("give either --sources or --m, not both%s%s", "", "");
    int rc;
    if (o->sources) {
        if ((rc = parse_sources(o->sources, c->topo, &c->sources, &p->nsources)))
            return rc;
    } else if (o->m > 0) {
        if (o->m > (int64_t) c->topo->nproc) {
            fprintf(stderr, "stepnet: --m %lld is more than the %u processors of %s\n",
                    (long long) o->m, c->topo->nproc, c->topo->spec);
            return EXIT_BADINPUT;
        }
        /* M distinct processors drawn from the seed (Fisher-Yates over the ranks) */
        uint32_t np = c->topo->nproc;
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
    if (c->sources) {
        qsort(c->sources, p->nsources, sizeof *c->sources, cmp_u32);
        for (uint32_t i = 1; i < p->nsources; i++)
            if (c->sources[i] == c->sources[i - 1]) {
                fprintf(stderr, "stepnet: --sources names processor %d twice\n",
                        sn_topo_rank(c->topo, c->sources[i]));
                return EXIT_BADINPUT;
            }
        p->sources = c->sources;
    }
    char text[CLI_ERR_TEXT_MAX];
    if (sn_params_check(c->topo, p, &err) < 0)
        return bad("%s%s", cli_err_text(&err, text, sizeof text), "");
    if (sn_model_select(o->algo, c->topo, p, &c->algo, &c->plan, &c->predicted, &err) < 0)
        return bad("%s%s", cli_err_text(&err, text, sizeof text), "");
    if (sn_model_bounds(c->topo, p, &c->bounds, &err) < 0)
        return bad("%s%s", err.msg, "");
    return 0;
}

void cli_ctx_free(cli_ctx_t *c)
{
    if (c->algo && c->plan)
        c->algo->plan_free(c->plan);
    sn_topo_free(c->topo);
    free(c->sources);
    memset(c, 0, sizeof *c);
}
