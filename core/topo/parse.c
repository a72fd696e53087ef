/* The topology spec parser (core/topo): `family:params` factors joined by `*` into cartesian
 * products, one parser per family in the `families` table, which the list of kinds (kinds.def)
 * generates. Every error names the bad value and says what is accepted, because that line is what
 * a user sees (exit status 2). Sizes are bounded before anything is allocated. `file:PATH` edge
 * lists are read by parse_file.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/topo/parse_internal.h"
#include "core/topo/topo_internal.h"
#include "stepnet/topo.h"
#include "stepnet/util.h"

/* Splits s at separator sep into at most max fields; returns the count or -1 if more. */
static int split(const char *s, char sep, const char **f, size_t *flen, int max)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        const char *q = strchr(p, sep);
        if (n == max)
            return -1;
        f[n] = p;
        flen[n] = q ? (size_t) (q - p) : strlen(p);
        n++;
        if (!q)
            return n;
        p = q + 1;
    }
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Called by every family once it knows the sizes z of factor s and before it builds anything. In
 * count-only mode it records them in src->size and returns SN__TOPO_COUNTED, which the family
 * returns as it is; otherwise it refuses a topology whose estimated memory exceeds the limit. */
static int budget(const sn__topo_source_t *src, const char *s, const sn__topo_size_t *z,
                  sn_err_t *err)
{
    if (src->size != NULL) {
        *src->size = *z;
        src->size->spec = sn_xstrdup(z->spec);
        return SN__TOPO_COUNTED;
    }
    uint64_t nodes = z->nodes, ports = z->ports;
    uint64_t need = sn_topo_mem_estimate(nodes, ports);
    if (src->max_bytes == 0 || need <= src->max_bytes)
        return 0;
    char a[32], b[32];
    return sn_err_set_param(err, SN_ERANGE, SN_PARAM_MEMORY,
                            "'%s' has %llu nodes and %llu ports: its topology alone needs about "
                            "%s; the memory limit is %s",
                            s, (unsigned long long) nodes, (unsigned long long) ports,
                            sn_fmt_bytes(need, a, sizeof a),
                            sn_fmt_bytes(src->max_bytes, b, sizeof b));
}

/* ---- the families -------------------------------------------------------------------------
 * One parser per family: args is the factor s after "family:", fam the family's name. Each bounds
 * its numbers, refuses a topology over the memory budget before it is built, builds it in *out
 * and sets its canonical spec. */

typedef int (*family_parse_t)(const sn__topo_source_t *src, const char *fam, const char *args,
                              const char *s, sn_topo_t **out, sn_err_t *err);

static int family_file(const sn__topo_source_t *src, const char *fam, const char *args,
                       const char *s, sn_topo_t **out, sn_err_t *err)
{
    (void) fam;
    if (*args == '\0')
        return sn_err_set(err, SN_ESPEC, "'file:' needs a path, e.g. file:graph.txt");
    if (src->size == NULL)
        return sn__topo_parse_file(src, args, s, out, err);
    /* Counting a file graph reads and parses it (bounded by SN_TOPO_MAX_FILE) and frees it again:
     * its counts are its lines, and its errors are those of parsing it. */
    sn_topo_t *t;
    int rc = sn__topo_parse_file(src, args, s, &t, err);
    if (rc < 0)
        return rc;
    rc = budget(src, s, &(sn__topo_size_t){t->n, t->nproc, t->port_off[t->n], 0, t->spec}, err);
    sn_topo_free(t);
    return rc;
}

/* linear:N, ring:N and complete:N. */
static int family_line(const sn__topo_source_t *src, const char *fam, const char *args,
                       const char *s, sn_topo_t **out, sn_err_t *err)
{
    uint64_t v;
    int rc;
    char canon[256];
    uint64_t hi = strcmp(fam, "complete") == 0 ? 16384 : SN_TOPO_MAX_NODES;
    if ((rc = sn__topo_parse_num(args, strlen(args), 2, hi, "node count", s, &v, err)) < 0)
        return rc;
    snprintf(canon, sizeof canon, "%s:%llu", fam, (unsigned long long) v);
    uint64_t ports = fam[0] == 'c' ? v * (v - 1) : 2 * v;
    if ((rc = budget(src, s, &(sn__topo_size_t){v, v, ports, 0, canon}, err)) != 0)
        return rc;
    if (fam[0] == 'l')
        rc = sn__topo_linear((uint32_t) v, out, err);
    else if (fam[0] == 'r') {
        uint32_t one = 1;
        rc = sn__topo_circulant(SN_TOPO_RING, (uint32_t) v, &one, 1, out, err);
    } else
        rc = sn__topo_complete((uint32_t) v, out, err);
    return rc < 0 ? rc : sn__topo_set_spec(*out, canon);
}

static int family_ering(const sn__topo_source_t *src, const char *fam, const char *args,
                        const char *s, sn_topo_t **out, sn_err_t *err)
{
    (void) fam;
    uint64_t v, w;
    int rc;
    char canon[256];
    const char *f[3];
    size_t fl[3];
    if (split(args, ':', f, fl, 2) != 2)
        return sn_err_set(err, SN_ESPEC, "bad extended ring '%s': expected ering:N:RHO", s);
    if ((rc = sn__topo_parse_num(f[0], fl[0], 2, SN_TOPO_MAX_NODES, "node count", s, &v, err)) < 0)
        return rc;
    if ((rc = sn__topo_parse_num(f[1], fl[1], 1, v / 2, "RHO", s, &w, err)) < 0)
        return rc;
    if ((uint64_t) v * 2 * w > SN_TOPO_MAX_PORTS)
        return sn_err_set(err, SN_ERANGE, "'%s' has too many links (at most %u ports)", s,
                          SN_TOPO_MAX_PORTS);
    snprintf(canon, sizeof canon, "ering:%llu:%llu", (unsigned long long) v,
             (unsigned long long) w);
    if ((rc = budget(src, s, &(sn__topo_size_t){v, v, 2 * v * w, 0, canon}, err)) != 0)
        return rc;
    uint32_t *jumps = sn_xmalloc(w * sizeof *jumps);
    for (uint32_t i = 0; i < w; i++)
        jumps[i] = i + 1;
    rc = sn__topo_circulant(SN_TOPO_ERING, (uint32_t) v, jumps, (uint32_t) w, out, err);
    free(jumps);
    if (rc < 0)
        return rc;
    (*out)->b = (uint32_t) w;
    return sn__topo_set_spec(*out, canon);
}

/* The jumps of circulant:N:J1,J2,... (list: the text after N, len bytes) into jumps[0 .. *nj-1],
 * each once and coprime with N as a whole, appended to canon (cl bytes used). */
static int circulant_jumps(const char *s, const char *list, size_t len, uint64_t v, uint32_t *jumps,
                           int *nj, char *canon, size_t cl, size_t cap, sn_err_t *err)
{
    char jl[256];
    if (len >= sizeof jl)
        return sn_err_set(err, SN_ESPEC, "jump list in '%s' is too long", s);
    memcpy(jl, list, len);
    jl[len] = '\0';
    const char *jf[64];
    size_t jfl[64];
    int n = split(jl, ',', jf, jfl, 64);
    if (n < 0)
        return sn_err_set(err, SN_ESPEC, "'%s' has more than 64 jumps", s);
    uint64_t g = v;
    int rc;
    for (int i = 0; i < n; i++) {
        uint64_t j;
        if ((rc = sn__topo_parse_num(jf[i], jfl[i], 1, v - 1, "jump", s, &j, err)) < 0)
            return rc;
        for (int k = 0; k < i; k++)
            if (jumps[k] == j || jumps[k] == v - j)
                return sn_err_set(err, SN_ESPEC,
                                  "jump %llu in '%s' repeats jump %u (+-%u mod %llu): give "
                                  "each jump once",
                                  (unsigned long long) j, s, jumps[k], jumps[k],
                                  (unsigned long long) v);
        jumps[i] = (uint32_t) j;
        g = gcd64(g, j);
        cl +=
            (size_t) snprintf(canon + cl, cap - cl, "%s%llu", i ? "," : "", (unsigned long long) j);
    }
    if (g != 1)
        return sn_err_set(err, SN_ESPEC,
                          "'%s' is disconnected: N and the jumps share the factor %llu (the "
                          "gcd of N and all jumps must be 1)",
                          s, (unsigned long long) g);
    *nj = n;
    return 0;
}

static int family_circulant(const sn__topo_source_t *src, const char *fam, const char *args,
                            const char *s, sn_topo_t **out, sn_err_t *err)
{
    (void) fam;
    uint64_t v;
    int rc;
    char canon[256];
    const char *f[3];
    size_t fl[3];
    if (split(args, ':', f, fl, 2) != 2)
        return sn_err_set(err, SN_ESPEC,
                          "bad circulant '%s': expected circulant:N:J1,J2,... (jumps)", s);
    if ((rc = sn__topo_parse_num(f[0], fl[0], 2, SN_TOPO_MAX_NODES, "node count", s, &v, err)) < 0)
        return rc;
    uint32_t jumps[64];
    int nj = 0;
    size_t cl = (size_t) snprintf(canon, sizeof canon, "circulant:%llu:", (unsigned long long) v);
    if ((rc = circulant_jumps(s, f[1], fl[1], v, jumps, &nj, canon, cl, sizeof canon, err)) < 0)
        return rc;
    if ((uint64_t) v * 2 * (uint64_t) nj > SN_TOPO_MAX_PORTS)
        return sn_err_set(err, SN_ERANGE, "'%s' has too many links", s);
    if ((rc = budget(src, s, &(sn__topo_size_t){v, v, 2 * v * (uint64_t) nj, 0, canon}, err)) != 0)
        return rc;
    if ((rc = sn__topo_circulant(SN_TOPO_CIRCULANT, (uint32_t) v, jumps, (uint32_t) nj, out, err)) <
        0)
        return rc;
    return sn__topo_set_spec(*out, canon);
}

/* mesh:AxB[xC...] and torus:AxB[xC...]. */
static int family_grid(const sn__topo_source_t *src, const char *fam, const char *args,
                       const char *s, sn_topo_t **out, sn_err_t *err)
{
    int rc;
    char canon[256];
    int torus = fam[0] == 't';
    const char *f[SN_TOPO_MAX_FACTORS + 1];
    size_t fl[SN_TOPO_MAX_FACTORS + 1];
    int nd = split(args, 'x', f, fl, SN_TOPO_MAX_FACTORS);
    if (nd < 0)
        return sn_err_set(err, SN_ESPEC, "'%s' has more than %d dimensions", s,
                          SN_TOPO_MAX_FACTORS);
    uint64_t dims[SN_TOPO_MAX_FACTORS], nodes = 1;
    size_t cl = (size_t) snprintf(canon, sizeof canon, "%s:", fam);
    for (int i = 0; i < nd; i++) {
        if ((rc = sn__topo_parse_num(f[i], fl[i], 2, SN_TOPO_MAX_NODES, "dimension size", s,
                                     &dims[i], err)) < 0)
            return rc;
        nodes *= dims[i];
        if (nodes > SN_TOPO_MAX_NODES)
            return sn__topo_too_big(s, nodes, err);
        cl += (size_t) snprintf(canon + cl, sizeof canon - cl, "%s%llu", i ? "x" : "",
                                (unsigned long long) dims[i]);
    }
    uint64_t ports = nodes * 2 * (uint64_t) nd;
    if (ports > SN_TOPO_MAX_PORTS)
        return sn_err_set(err, SN_ERANGE, "'%s' has too many links", s);
    if ((rc = budget(src, s, &(sn__topo_size_t){nodes, nodes, ports, (uint32_t) nd, canon}, err)) !=
        0)
        return rc;
    sn_topo_t *fs[SN_TOPO_MAX_FACTORS];
    for (int i = 0; i < nd; i++) {
        uint32_t one = 1;
        rc = torus ? sn__topo_circulant(SN_TOPO_RING, (uint32_t) dims[i], &one, 1, &fs[i], err)
                   : sn__topo_linear((uint32_t) dims[i], &fs[i], err);
        if (rc < 0) {
            while (i-- > 0)
                sn_topo_free(fs[i]);
            return rc;
        }
        char sub[64];
        snprintf(sub, sizeof sub, "%s:%llu", torus ? "ring" : "linear",
                 (unsigned long long) dims[i]);
        sn__topo_set_spec(fs[i], sub);
    }
    if ((rc = sn__topo_product(torus ? SN_TOPO_TORUS : SN_TOPO_MESH, fs, (uint32_t) nd, out, err)) <
        0)
        return rc;
    return sn__topo_set_spec(*out, canon);
}

/* hypercube:D and foldedcube:D. */
static int family_cube(const sn__topo_source_t *src, const char *fam, const char *args,
                       const char *s, sn_topo_t **out, sn_err_t *err)
{
    uint64_t v;
    int rc;
    char canon[256];
    int folded = fam[0] == 'f';
    if ((rc = sn__topo_parse_num(args, strlen(args), folded ? 2 : 1, 25, "dimension", s, &v, err)) <
        0)
        return rc;
    uint64_t ports = (v + folded) << v;
    if (ports > SN_TOPO_MAX_PORTS)
        return sn_err_set(err, SN_ERANGE, "'%s' has %llu ports; at most %u are supported", s,
                          (unsigned long long) ports, SN_TOPO_MAX_PORTS);
    snprintf(canon, sizeof canon, "%s:%llu", fam, (unsigned long long) v);
    if ((rc = budget(src, s, &(sn__topo_size_t){1ull << v, 1ull << v, ports, 0, canon}, err)) != 0)
        return rc;
    if ((rc = sn__topo_hypercube(folded ? SN_TOPO_FOLDEDCUBE : SN_TOPO_HYPERCUBE, (uint32_t) v, out,
                                 err)) < 0)
        return rc;
    return sn__topo_set_spec(*out, canon);
}

/* ccc:D and butterfly:D. */
static int family_ccc(const sn__topo_source_t *src, const char *fam, const char *args,
                      const char *s, sn_topo_t **out, sn_err_t *err)
{
    uint64_t v;
    int rc;
    char canon[256];
    if ((rc = sn__topo_parse_num(args, strlen(args), 2, 20, "dimension", s, &v, err)) < 0)
        return rc;
    uint64_t ports = (uint64_t) (fam[0] == 'c' ? 3 : 4) * (v << v);
    if (ports > SN_TOPO_MAX_PORTS)
        return sn_err_set(err, SN_ERANGE, "'%s' has %llu ports; at most %u are supported", s,
                          (unsigned long long) ports, SN_TOPO_MAX_PORTS);
    snprintf(canon, sizeof canon, "%s:%llu", fam, (unsigned long long) v);
    if ((rc = budget(src, s, &(sn__topo_size_t){v << v, v << v, ports, 0, canon}, err)) != 0)
        return rc;
    if ((rc = sn__topo_ccc(fam[0] == 'c' ? SN_TOPO_CCC : SN_TOPO_BUTTERFLY, (uint32_t) v, out,
                           err)) < 0)
        return rc;
    return sn__topo_set_spec(*out, canon);
}

static int family_star(const sn__topo_source_t *src, const char *fam, const char *args,
                       const char *s, sn_topo_t **out, sn_err_t *err)
{
    (void) fam;
    uint64_t v;
    int rc;
    char canon[256];
    if ((rc = sn__topo_parse_num(args, strlen(args), 2, 9, "symbol count", s, &v, err)) < 0)
        return rc;
    uint64_t nodes = 1;
    for (uint64_t i = 2; i <= v; i++)
        nodes *= i;
    snprintf(canon, sizeof canon, "star:%llu", (unsigned long long) v);
    if ((rc = budget(src, s, &(sn__topo_size_t){nodes, nodes, nodes * (v - 1), 0, canon}, err)) !=
        0)
        return rc;
    if ((rc = sn__topo_star((uint32_t) v, out, err)) < 0)
        return rc;
    return sn__topo_set_spec(*out, canon);
}

/* The link counts caps[1 .. h] of a fat tree from its third field (mode, mlen bytes: const, exp
 * or h comma-separated counts), appended to canon (cl bytes used). */
static int fattree_caps(const char *s, const char *mode, size_t mlen, uint64_t k, uint64_t h,
                        uint32_t *caps, char *canon, size_t cl, size_t cap, sn_err_t *err)
{
    if (mlen == 5 && memcmp(mode, "const", 5) == 0) {
        for (uint32_t l = 1; l <= h; l++)
            caps[l] = 1;
        snprintf(canon + cl, cap - cl, "const");
        return 0;
    }
    if (mlen == 3 && memcmp(mode, "exp", 3) == 0) {
        for (uint32_t l = 1; l <= h; l++)
            caps[l] = (uint32_t) sn__upow(k, l - 1);
        snprintf(canon + cl, cap - cl, "exp");
        return 0;
    }
    char cl_buf[256];
    if (mlen >= sizeof cl_buf)
        return sn_err_set(err, SN_ESPEC, "capacity list in '%s' is too long", s);
    memcpy(cl_buf, mode, mlen);
    cl_buf[mlen] = '\0';
    const char *cf[26];
    size_t cfl[26];
    int nc = split(cl_buf, ',', cf, cfl, 25);
    if (nc != (int) h)
        return sn_err_set(err, SN_ESPEC,
                          "'%s': the third field must be const, exp or exactly H=%llu "
                          "comma-separated link counts (one per level, leaves first)",
                          s, (unsigned long long) h);
    for (int i = 0; i < nc; i++) {
        uint64_t c;
        int rc;
        if ((rc = sn__topo_parse_num(cf[i], cfl[i], 1, 65536, "link count", s, &c, err)) < 0)
            return rc;
        caps[i + 1] = (uint32_t) c;
        cl +=
            (size_t) snprintf(canon + cl, cap - cl, "%s%llu", i ? "," : "", (unsigned long long) c);
    }
    return 0;
}

static int family_fattree(const sn__topo_source_t *src, const char *fam, const char *args,
                          const char *s, sn_topo_t **out, sn_err_t *err)
{
    (void) fam;
    int rc;
    char canon[256];
    const char *f[4];
    size_t fl[4];
    int nf = split(args, ':', f, fl, 3);
    if (nf < 2)
        return sn_err_set(err, SN_ESPEC,
                          "bad fat tree '%s': expected fattree:K:H[:const|exp|C1,C2,...]", s);
    uint64_t k, h;
    if ((rc = sn__topo_parse_num(f[0], fl[0], 2, 1024, "arity K", s, &k, err)) < 0)
        return rc;
    if ((rc = sn__topo_parse_num(f[1], fl[1], 1, 24, "height H", s, &h, err)) < 0)
        return rc;
    uint64_t nodes = 0;
    for (uint32_t l = 0; l <= h; l++) {
        nodes += sn__upow(k, (uint32_t) (h - l));
        if (nodes > SN_TOPO_MAX_NODES)
            return sn__topo_too_big(s, nodes, err);
    }
    uint32_t caps[26];
    caps[0] = 0;
    size_t cl = (size_t) snprintf(canon, sizeof canon, "fattree:%llu:%llu:", (unsigned long long) k,
                                  (unsigned long long) h);
    if ((rc = fattree_caps(s, nf == 3 ? f[2] : "const", nf == 3 ? fl[2] : 5, k, h, caps, canon, cl,
                           sizeof canon, err)) < 0)
        return rc;
    uint64_t ports = 0;
    for (uint32_t l = 1; l <= h; l++)
        ports += 2 * sn__upow(k, (uint32_t) (h - l + 1)) * caps[l];
    if (ports > SN_TOPO_MAX_PORTS)
        return sn_err_set(err, SN_ERANGE, "'%s' has %llu ports; at most %u are supported", s,
                          (unsigned long long) ports, SN_TOPO_MAX_PORTS);
    uint64_t procs = sn__upow(k, (uint32_t) h);
    if ((rc = budget(src, s, &(sn__topo_size_t){nodes, procs, ports, 0, canon}, err)) != 0)
        return rc;
    if ((rc = sn__topo_fattree((uint32_t) k, (uint32_t) h, caps, out, err)) < 0)
        return rc;
    return sn__topo_set_spec(*out, canon);
}

/* The families a spec names, from the list of kinds (kinds.def), in the order that messages list
 * them: name, parser, and the spec's form (a kind without a parser, the product, is no family). */
static const struct {
    const char *name;
    family_parse_t parse;
    const char *help;
} families[] = {
#define SN_TOPO_KIND(id, name_, form_, parse_, group, label)                                       \
    {.name = name_, .parse = parse_, .help = form_},
#include "core/topo/kinds.def"
};

/* What messages list as accepted: every family's form, then products. */
static const char *family_list(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof families / sizeof families[0] && len < cap; i++)
        if (families[i].parse != NULL)
            len += (size_t) snprintf(buf + len, cap - len, "%s, ", families[i].help);
    if (len < cap)
        snprintf(buf + len, cap - len, "and products S1*S2*...");
    return buf;
}

/* Parses one factor (no '*'): s is NUL-terminated. */
static int parse_factor(const sn__topo_source_t *src, const char *s, sn_topo_t **out, sn_err_t *err)
{
    char list[512];
    const char *colon = strchr(s, ':');
    if (colon == NULL)
        return sn_err_set(err, SN_ESPEC, "bad topology '%s': expected family:parameters, one of %s",
                          s, family_list(list, sizeof list));
    size_t flen = (size_t) (colon - s);
    char fam[32];
    if (flen >= sizeof fam)
        flen = sizeof fam - 1;
    memcpy(fam, s, flen);
    fam[flen] = '\0';
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i].parse != NULL && strcmp(fam, families[i].name) == 0)
            return families[i].parse(src, fam, colon + 1, s, out, err);
    const char *names[sizeof families / sizeof families[0]];
    size_t nn = 0;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i].parse != NULL)
            names[nn++] = families[i].name;
    const char *near = sn_suggest(fam, strlen(fam), names, nn);
    if (near)
        return sn_err_set(err, SN_ESPEC,
                          "unknown topology family '%s' in '%s': did you mean %s? accepted: %s",
                          fam, s, near, family_list(list, sizeof list));
    return sn_err_set(err, SN_ESPEC, "unknown topology family '%s' in '%s'; accepted: %s", fam, s,
                      family_list(list, sizeof list));
}

static int parse_spec(const sn__topo_source_t *src, const char *spec, sn_topo_t **out,
                      sn_err_t *err);

int sn_topo_parse(const char *spec, sn_topo_t **out, sn_err_t *err)
{
    sn__topo_source_t src = {NULL, 0, 0, NULL};
    return parse_spec(&src, spec, out, err);
}

int sn_topo_parse_with(const char *spec, const sn_topo_file_t *files, size_t nfiles,
                       sn_topo_t **out, sn_err_t *err)
{
    sn__topo_source_t src = {files, nfiles, 0, NULL};
    return parse_spec(&src, spec, out, err);
}

int sn_topo_parse_budget(const char *spec, const sn_topo_file_t *files, size_t nfiles,
                         uint64_t max_bytes, sn_topo_t **out, sn_err_t *err)
{
    sn__topo_source_t src = {files, nfiles, max_bytes, NULL};
    return parse_spec(&src, spec, out, err);
}

/* The sizes of a built factor, as its family's budget call gave them. */
static sn__topo_size_t size_of(const sn_topo_t *t)
{
    return (sn__topo_size_t){t->n, t->nproc, t->port_off[t->n], t->nfactors, t->spec};
}

/* Parses spec: in count-only mode (src->size) fills *src->size and returns SN__TOPO_COUNTED
 * without building anything but file: graphs, otherwise builds *out. The errors are the same in
 * both modes, except that only building checks the memory limit. */
static int parse_spec(const sn__topo_source_t *src, const char *spec, sn_topo_t **out,
                      sn_err_t *err)
{
    *out = NULL;
    if (spec == NULL || *spec == '\0') {
        char list[512];
        return sn_err_set(err, SN_ESPEC, "empty topology spec; accepted: %s",
                          family_list(list, sizeof list));
    }
    /* `file:` consumes the rest of its factor up to the next '*', so paths cannot contain '*'. */
    char *copy = sn_xstrdup(spec);
    sn_topo_t *parts[SN_TOPO_MAX_FACTORS] = {NULL};
    sn__topo_size_t
        sz[SN_TOPO_MAX_FACTORS]; /* the sizes of the factors (specs owned if counting) */
    int np = 0, rc = 0;
    char *save = NULL;
    const char *prev_tok = NULL;
    for (char *tok = strtok_r(copy, "*", &save); tok;
         prev_tok = tok, tok = strtok_r(NULL, "*", &save)) {
        if (np == SN_TOPO_MAX_FACTORS) {
            rc = sn_err_set(err, SN_ESPEC, "'%s' has more than %d product factors", spec,
                            SN_TOPO_MAX_FACTORS);
            goto fail;
        }
        if (strchr(spec, '*') && strchr(tok, ':') == NULL) {
            /* "torus:4*4": a product's factor that is no topology, often a dimension meant for
             * the x of a mesh or a torus */
            const char *prev = prev_tok ? prev_tok : "";
            int digits = tok[0] != '\0' && strspn(tok, "0123456789") == strlen(tok);
            int grid = strncmp(prev, "torus:", 6) == 0 || strncmp(prev, "mesh:", 5) == 0;
            if (digits && grid)
                rc = sn_err_set(err, SN_ESPEC,
                                "bad topology '%s': its factor '%s' is not a topology (every "
                                "factor of S1*S2 is one, as in ring:4*ring:4); did you mean "
                                "%sx%s?",
                                spec, tok, prev, tok);
            else
                rc = sn_err_set(err, SN_ESPEC,
                                "bad topology '%s': its factor '%s' is not a topology (every "
                                "factor of S1*S2 is family:parameters, as in ring:4*ring:4)",
                                spec, tok);
            goto fail;
        }
        if ((rc = parse_factor(src, tok, &parts[np], err)) < 0)
            goto fail;
        if (src->size != NULL)
            sz[np] = *src->size;
        else
            sz[np] = size_of(parts[np]);
        np++;
    }
    if (np == 0 || spec[0] == '*' || spec[strlen(spec) - 1] == '*' || strstr(spec, "**")) {
        rc = sn_err_set(err, SN_ESPEC, "bad product '%s': expected S1*S2*... with no empty factor",
                        spec);
        goto fail;
    }
    if (np == 1 && src->size == NULL) {
        *out = parts[0];
        free(copy);
        return 0;
    }
    /* Flatten: the factors of mesh/torus/product factors become factors of the product. */
    sn_topo_t *flat[SN_TOPO_MAX_FACTORS];
    int nf = 0;
    uint64_t nodes = 1, ports = 0;
    for (int i = 0; i < np && np > 1; i++) {
        if (sz[i].procs < sz[i].nodes) {
            rc = sn_err_set(err, SN_ESPEC,
                            "'%s' has routers and cannot be a product factor (only graphs whose "
                            "nodes are all processors can)",
                            sz[i].spec);
            goto fail;
        }
        nodes *= sz[i].nodes;
        if (nodes > SN_TOPO_MAX_NODES) {
            rc = sn__topo_too_big(spec, nodes, err);
            goto fail;
        }
        uint32_t cnt = sz[i].nfactors ? sz[i].nfactors : 1;
        if (nf + (int) cnt > SN_TOPO_MAX_FACTORS) {
            rc = sn_err_set(err, SN_ESPEC, "'%s' has more than %d dimensions in all", spec,
                            SN_TOPO_MAX_FACTORS);
            goto fail;
        }
        nf += (int) cnt;
    }
    for (int i = 0; i < np && np > 1; i++)
        ports += (nodes / sz[i].nodes) * sz[i].ports;
    if (ports > SN_TOPO_MAX_PORTS) {
        rc = sn_err_set(err, SN_ERANGE, "'%s' has %llu ports; at most %u are supported", spec,
                        (unsigned long long) ports, SN_TOPO_MAX_PORTS);
        goto fail;
    }
    size_t speclen = 0;
    for (int i = 0; i < np; i++)
        speclen += strlen(sz[i].spec) + 1;
    char *canon = sn_xmalloc(speclen + 1);
    canon[0] = '\0';
    for (int i = 0; i < np; i++) {
        if (i)
            strcat(canon, "*");
        strcat(canon, sz[i].spec);
    }
    if (src->size != NULL) {
        if (np > 1)
            *src->size = (sn__topo_size_t){nodes, nodes, ports, (uint32_t) nf, NULL};
        src->size->spec = canon;
        rc = SN__TOPO_COUNTED;
        goto fail; /* frees the factors' specs */
    }
    if ((rc = budget(src, spec, &(sn__topo_size_t){nodes, nodes, ports, (uint32_t) nf, canon},
                     err)) < 0) {
        free(canon);
        goto fail;
    }
    nf = 0;
    for (int i = 0; i < np; i++) {
        if (parts[i]->nfactors) {
            for (uint32_t j = 0; j < parts[i]->nfactors; j++)
                flat[nf++] = parts[i]->factors[j];
            parts[i]->nfactors = 0; /* the factors now belong to the product */
            sn_topo_free(parts[i]);
        } else {
            flat[nf++] = parts[i];
        }
    }
    free(copy);
    rc = sn__topo_product(SN_TOPO_PRODUCT, flat, (uint32_t) nf, out, err);
    if (rc == 0)
        sn__topo_set_spec(*out, canon);
    free(canon);
    return rc;
fail:
    for (int i = 0; i < np; i++) {
        sn_topo_free(parts[i]);
        if (src->size != NULL)
            free(sz[i].spec);
    }
    free(copy);
    return rc;
}

int sn_topo_parse_size(const char *spec, const sn_topo_file_t *files, size_t nfiles,
                       uint64_t *nodes, uint64_t *procs, char **canon, sn_err_t *err)
{
    sn__topo_size_t size = {0, 0, 0, 0, NULL};
    sn__topo_source_t src = {files, nfiles, 0, &size};
    sn_topo_t *none;
    int rc = parse_spec(&src, spec, &none, err);
    if (rc < 0)
        return rc;
    *nodes = size.nodes;
    *procs = size.procs;
    if (canon != NULL)
        *canon = size.spec;
    else
        free(size.spec);
    return 0;
}
