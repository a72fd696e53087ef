/* The multiport scattering tree of the 2-D n x m torus (core/algo).
 *
 * Source: Dimakopoulos, thesis, section 3.4.2 (Fig. 3.7 and the four parity
 * cases), with the errata (a) to (g) of the printed construction named below. The root's
 * four neighbours own four regions of about (nm-1)/4 nodes each, so scattering over the tree takes
 * max |region| = ceil((nm-1)/4) steps, the lower bound (3.3) (Theorem 3.7).
 *
 * The plane. n rows (the torus's first factor, the y axis) and m columns (the second, the x axis);
 * Yp = ceil((n-1)/2), Ym = floor((n-1)/2), Xp = ceil((m-1)/2), Xm = floor((m-1)/2) (erratum b: the
 * positive sides take the ceiling); plane point [x, y], -Xm <= x <= Xp, -Ym <= y <= Yp, is torus
 * node ((r - y) mod n, (c - x) mod m) for the root (r, c) (erratum a: row first).
 *
 * Regions. A = {x >= 1, y >= 1} owned by [0,1], B = {x >= 1, y <= -1} by [1,0], C = {x, y <= -1}
 * by [0,-1], D = {x <= -1, y >= 1} by [-1,0]. The axes are shared out; the rule of the
 * four cases factors into the parities (checked against the printed cases and region sizes):
 *   x axes (depend on n): n odd: x+ odd -> B, even -> A; x- odd -> D, even -> C.
 *                         n even: x+ all -> B; x- [-1,0] -> D (its owner), the rest -> C;
 *                         then [-Xm, 1] moves from D to C (cases 2 and 4; erratum c).
 *   y axes (depend on m): m odd: y+ odd -> A, even -> D; y- odd -> C, even -> B.
 *                         m even: y+ [0,1] -> A (its owner), the rest -> D; y- all -> C;
 *                         then [1, Yp] moves from A to D (cases 3 and 4).
 * Parities are of |coordinate| (erratum e); owners stay in their regions (erratum d).
 *
 * Trees inside a region (section 3.4.2), in the frame that turns the region into A (B: (x,y) ->
 * (-y,x), C: (x,y) -> (-x,-y), D: (x,y) -> (y,-x)): the owner [0,1] starts a spine along y = 1 to
 * the right, a vertical segment rises from every spine point; an axis point [0,y] hangs under the
 * leftmost region point of its row, [1,y], and an axis point [x,0] under [x,1]. The moved points
 * hang under their neighbour in the new region: [-Xm,1] under [-Xm,0], [1,Yp] under [0,Yp].
 *
 * Where the construction does not give a tree (erratum f, g), and what we do instead (the method
 * of every size is checked in tests/unit/test_thesis_trees.c for n, m = 3 .. 40):
 *   n even >= 6, m = 4 : [-1,1] would move to C but only touches A and D. We transpose: the same
 *                        construction with the roles of n and m swapped (the torus is symmetric),
 *                        which works there;
 *   4 x 4              : both orientations fail; an explicit balanced tree found by hand;
 *   3 x even, even x 3 : outside the thesis range (n, m >= 4) and both orientations fail (Yp = 1,
 *                        or Xm = 1 with n even); the generic balanced tree (sn__tree_balanced),
 *                        which reaches ceil((nm-1)/4) on every such size we tried (m <= 400).
 * Every other n, m >= 3, 3 x odd and odd x 3 included, uses the construction as printed. */
#include <stdlib.h>

#include "core/algo/engine/tree.h"
#include "core/algo/engine/tree_torus.h"
#include "stepnet/util.h"

enum { REG_O = 0, REG_A, REG_B, REG_C, REG_D };

typedef struct {
    int32_t Xp, Xm, Yp, Ym;
    int32_t h;    /* rows: Ym + Yp + 1 */
    uint8_t *reg; /* [m*n] region of each plane point, index (x + Xm) * h + (y + Ym) */
    int32_t *par; /* [m*n] parent point index, -1 at the origin */
} plane_t;

static int32_t at(const plane_t *pl, int32_t x, int32_t y)
{
    return (x + pl->Xm) * pl->h + (y + pl->Ym);
}

static int inside(const plane_t *pl, int32_t x, int32_t y)
{
    return x >= -pl->Xm && x <= pl->Xp && y >= -pl->Ym && y <= pl->Yp;
}

/* Region frames: the rotation that takes region r onto A, (fx, fy) = (a x + b y, c x + d y) with
 * ROT[r] = {a, b, c, d}; B: (x,y) -> (-y,x), C: (x,y) -> (-x,-y), D: (x,y) -> (y,-x). The inverse
 * is the transpose. */
static const int32_t ROT[5][4] = {
    {1, 0, 0, 1}, {1, 0, 0, 1}, {0, -1, 1, 0}, {-1, 0, 0, -1}, {0, 1, -1, 0},
};

static void to_frame(int r, int32_t x, int32_t y, int32_t *fx, int32_t *fy)
{
    *fx = ROT[r][0] * x + ROT[r][1] * y;
    *fy = ROT[r][2] * x + ROT[r][3] * y;
}

static void from_frame(int r, int32_t fx, int32_t fy, int32_t *x, int32_t *y)
{
    *x = ROT[r][0] * fx + ROT[r][2] * fy;
    *y = ROT[r][1] * fx + ROT[r][3] * fy;
}

static void plane_free(plane_t *pl)
{
    free(pl->reg);
    free(pl->par);
}

/* Builds the regions and the parent of every point of the n x m plane (n rows, m columns). 0 when
 * they form a spanning tree rooted at the origin, -1 when the construction fails for this size. */
static int plane_build(plane_t *pl, uint32_t n, uint32_t m)
{
    pl->Yp = (int32_t) (n / 2), pl->Ym = (int32_t) ((n - 1) / 2);
    pl->Xp = (int32_t) (m / 2), pl->Xm = (int32_t) ((m - 1) / 2);
    pl->h = (int32_t) n;
    pl->reg = sn_xcalloc((size_t) n * m, 1);
    pl->par = sn_xmalloc((size_t) n * m * sizeof *pl->par);
    for (int32_t x = -pl->Xm; x <= pl->Xp; x++) {
        for (int32_t y = -pl->Ym; y <= pl->Yp; y++) {
            uint8_t r;
            int32_t ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
            if (x == 0 && y == 0)
                r = REG_O;
            else if (x != 0 && y != 0) /* quadrants */
                r = x > 0 ? (y > 0 ? REG_A : REG_B) : (y > 0 ? REG_D : REG_C);
            else if (y == 0 && n % 2 == 1) /* x axes, n odd */
                r = x > 0 ? (ax % 2 ? REG_B : REG_A) : (ax % 2 ? REG_D : REG_C);
            else if (y == 0) /* x axes, n even */
                r = x > 0 ? REG_B : (ax == 1 ? REG_D : REG_C);
            else if (m % 2 == 1) /* y axes, m odd */
                r = y > 0 ? (ay % 2 ? REG_A : REG_D) : (ay % 2 ? REG_C : REG_B);
            else /* y axes, m even */
                r = y > 0 ? (ay == 1 ? REG_A : REG_D) : REG_C;
            pl->reg[at(pl, x, y)] = r;
        }
    }
    /* the moves of cases 2, 3 and 4 */
    int32_t mv_d = -1, mv_a = -1;
    if (n % 2 == 0) {
        mv_d = at(pl, -pl->Xm, 1);
        if (pl->reg[mv_d] != REG_D)
            return -1;
        pl->reg[mv_d] = REG_C;
        pl->par[mv_d] = at(pl, -pl->Xm, 0);
    }
    if (m % 2 == 0) {
        mv_a = at(pl, 1, pl->Yp);
        if (pl->reg[mv_a] != REG_A)
            return -1;
        pl->reg[mv_a] = REG_D;
        pl->par[mv_a] = at(pl, 0, pl->Yp);
    }
    for (int32_t x = -pl->Xm; x <= pl->Xp; x++) {
        for (int32_t y = -pl->Ym; y <= pl->Yp; y++) {
            int32_t i = at(pl, x, y), px, py, fx, fy;
            int r = pl->reg[i];
            if (r == REG_O) {
                pl->par[i] = -1;
                continue;
            }
            if (i == mv_d || i == mv_a) {
                if (pl->reg[pl->par[i]] != r)
                    return -1; /* the new region does not touch the moved point */
                continue;
            }
            to_frame(r, x, y, &fx, &fy);
            if (fx == 0 && fy == 1) { /* the owner */
                pl->par[i] = at(pl, 0, 0);
                continue;
            }
            if (fx >= 1 && fy == 1) /* spine */
                fx--;
            else if (fx >= 1 && fy >= 2) /* vertical segment */
                fy--;
            else if (fx == 0 && fy >= 2) /* axis point left of the region */
                fx = 1;
            else if (fy == 0 && fx >= 1) /* axis point below the region */
                fy = 1;
            else
                return -1;
            from_frame(r, fx, fy, &px, &py);
            if (!inside(pl, px, py) || pl->reg[at(pl, px, py)] != r)
                return -1; /* the parent left the region (it moved out) */
            pl->par[i] = at(pl, px, py);
        }
    }
    return 0;
}

sn_torus_method_t sn__torus_method(uint32_t n, uint32_t m)
{
    if (n == 4 && m == 4)
        return SN_TORUS_EXPLICIT;
    plane_t pl = {0}, tp = {0};
    sn_torus_method_t how = plane_build(&pl, n, m) == 0   ? SN_TORUS_THESIS
                            : plane_build(&tp, m, n) == 0 ? SN_TORUS_TRANSPOSED
                                                          : SN_TORUS_BALANCED;
    plane_free(&pl);
    plane_free(&tp);
    return how;
}

int sn__torus_get(const sn_topo_t *t, uint32_t *n, uint32_t *m, const char *who, sn_err_t *err)
{
    int two_rings = t->nfactors == 2 && t->factors[0]->kind == SN_TOPO_RING &&
                    t->factors[1]->kind == SN_TOPO_RING;
    /* always written: callers test the result only against 0, and sn_err_set's code is opaque
     * to the compiler (GCC 12 at -O3 warns maybe-uninitialized otherwise) */
    *n = *m = 0;
    if (!two_rings)
        return sn_err_set(err, SN_ENOTSUP,
                          "%s needs a 2-D torus (torus:NxM or ring:N*ring:M), not %s", who,
                          t->spec);
    *n = t->factors[0]->n;
    *m = t->factors[1]->n;
    if (*n < 3 || *m < 3)
        return sn_err_set(err, SN_ENOTSUP, "%s needs a 2-D torus with both sides >= 3, not %s", who,
                          t->spec);
    return 0;
}

/* The explicit balanced tree of the 4 x 4 torus (found by hand; the construction fails there), as
 * (row, col) offsets from the root: child, parent. Root subtrees of 3, 4, 4 and 4 nodes. */
static const uint8_t TREE_4X4[15][4] = {
    {0, 1, 0, 0}, {1, 1, 0, 1}, {2, 1, 1, 1}, {0, 3, 0, 0}, {0, 2, 0, 3},
    {3, 3, 0, 3}, {2, 3, 3, 3}, {1, 0, 0, 0}, {1, 3, 1, 0}, {1, 2, 1, 3},
    {2, 0, 1, 0}, {3, 0, 0, 0}, {3, 1, 3, 0}, {3, 2, 3, 1}, {2, 2, 3, 2},
};

sn_tree_t *sn__tree_torus(const sn_topo_t *t, uint32_t root)
{
    uint32_t n, m;
    if (sn__torus_get(t, &n, &m, "", NULL) < 0)
        return NULL;
    sn_torus_method_t how = sn__torus_method(n, m);
    if (how == SN_TORUS_BALANCED)
        return sn__tree_balanced(t, root);
    uint32_t r = sn_topo_coord(t, root, 0), c = sn_topo_coord(t, root, 1);
    sn_tree_t *tr = sn__tree_alloc(t, root);
    int ok = 1;
    if (how == SN_TORUS_EXPLICIT) {
        for (int i = 0; i < 15 && ok; i++) {
            uint32_t u = ((r + TREE_4X4[i][0]) % 4) * 4 + (c + TREE_4X4[i][1]) % 4;
            uint32_t v = ((r + TREE_4X4[i][2]) % 4) * 4 + (c + TREE_4X4[i][3]) % 4;
            ok = sn__tree_set_parent(t, tr, u, v) == 0;
        }
    } else {
        int tp = how == SN_TORUS_TRANSPOSED;
        uint32_t pn = tp ? m : n, pm = tp ? n : m; /* the plane's rows and columns */
        plane_t pl = {0};
        ok = plane_build(&pl, pn, pm) == 0;
        /* the torus node of every plane point: rows from y (or x when transposed) */
        uint32_t *node = sn_xmalloc((size_t) n * m * sizeof *node);
        for (int32_t x = -pl.Xm; x <= pl.Xp && ok; x++) {
            for (int32_t y = -pl.Ym; y <= pl.Yp; y++) {
                int64_t a = tp ? x : y, b = tp ? y : x;
                uint32_t row = (uint32_t) (((int64_t) r - a) % n + n) % n;
                uint32_t col = (uint32_t) (((int64_t) c - b) % m + m) % m;
                node[at(&pl, x, y)] = row * m + col;
            }
        }
        for (uint32_t i = 0; i < n * m && ok; i++)
            if (pl.par[i] >= 0)
                ok = sn__tree_set_parent(t, tr, node[i], node[pl.par[i]]) == 0;
        free(node);
        plane_free(&pl);
    }
    if (!ok || sn__tree_finish(t, tr) < 0) {
        sn__tree_free(tr);
        return NULL;
    }
    return tr;
}
