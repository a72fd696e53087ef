/* osu_peer: the MPI yardstick of scripts/bench/peers.sh (bench/), timed the way the OSU
 * Micro-Benchmarks time a blocking collective (osu_alltoall, osu_allgather, osu_bcast,
 * osu_scatter, osu_gather): per
 * message size, a few untimed warm-up iterations, then per iteration an MPI_Barrier followed by the
 * collective, each rank timing its own call with MPI_Wtime; each rank's average over the
 * iterations is reduced to the minimum, average and maximum over the ranks. Written for this
 * repository (no OSU code); built by the script with mpicc, never by CMake.
 *
 *   mpirun -np N osu_peer COLL SIZE... [--iters I] [--skip S]
 *
 * COLL is alltoall (SIZE bytes from every rank to every rank), allgather (SIZE bytes from every
 * rank to all), bcast (SIZE bytes from rank 0 to all), scatter (SIZE distinct bytes from rank 0
 * to each rank) or gather (SIZE bytes from each rank to rank 0). Rank 0 prints one line per size:
 * "size=S avg_us=A min_us=M max_us=X iters=I". Every received buffer is checked. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE (64u << 20)

static int usage(int rank, const char *why)
{
    if (rank == 0)
        fprintf(stderr,
                "osu_peer: %s\nusage: osu_peer alltoall|allgather|bcast|scatter|gather SIZE... "
                "[--iters I] "
                "[--skip S]\n  SIZE in bytes, 1 to %u\n",
                why, MAX_SIZE);
    MPI_Finalize();
    return 2;
}

/* The byte rank `src` sends to rank `dst` at offset i: every buffer can be checked. */
static unsigned char pattern(int src, int dst, size_t i)
{
    return (unsigned char) (src * 131 + dst * 17 + i * 7 + 1);
}

static int run(const char *coll, int rank, int np, size_t size, unsigned char *sbuf,
               unsigned char *rbuf)
{
    if (strcmp(coll, "alltoall") == 0)
        return MPI_Alltoall(sbuf, (int) size, MPI_BYTE, rbuf, (int) size, MPI_BYTE, MPI_COMM_WORLD);
    if (strcmp(coll, "allgather") == 0)
        return MPI_Allgather(sbuf, (int) size, MPI_BYTE, rbuf, (int) size, MPI_BYTE,
                             MPI_COMM_WORLD);
    if (strcmp(coll, "scatter") == 0)
        return MPI_Scatter(sbuf, (int) size, MPI_BYTE, rbuf, (int) size, MPI_BYTE, 0,
                           MPI_COMM_WORLD);
    if (strcmp(coll, "gather") == 0)
        return MPI_Gather(sbuf, (int) size, MPI_BYTE, rbuf, (int) size, MPI_BYTE, 0,
                          MPI_COMM_WORLD);
    (void) np;
    return MPI_Bcast(rank == 0 ? sbuf : rbuf, (int) size, MPI_BYTE, 0, MPI_COMM_WORLD);
}

/* Fills the send buffer with the pattern its receivers check. */
static void fill(const char *coll, int rank, int np, size_t size, unsigned char *sbuf)
{
    if (strcmp(coll, "alltoall") == 0 || (strcmp(coll, "scatter") == 0 && rank == 0)) {
        for (int d = 0; d < np; d++)
            for (size_t i = 0; i < size; i++)
                sbuf[(size_t) d * size + i] = pattern(rank, d, i);
    } else {
        for (size_t i = 0; i < size; i++)
            sbuf[i] = pattern(strcmp(coll, "bcast") == 0 ? 0 : rank, -1, i);
    }
}

/* Checks what the last call delivered: 0, or -1 on a wrong byte. */
static int check(const char *coll, int rank, int np, size_t size, const unsigned char *rbuf)
{
    if (strcmp(coll, "bcast") == 0 || strcmp(coll, "scatter") == 0) {
        int scatter = strcmp(coll, "scatter") == 0;
        if (rank == 0 && !scatter)
            return 0;
        for (size_t i = 0; i < size; i++)
            if (rbuf[i] != pattern(0, scatter ? rank : -1, i))
                return -1;
        return 0;
    }
    if (strcmp(coll, "gather") == 0 && rank != 0)
        return 0;
    for (int s = 0; s < np; s++)
        for (size_t i = 0; i < size; i++)
            if (rbuf[(size_t) s * size + i] !=
                (strcmp(coll, "alltoall") == 0 ? pattern(s, rank, i) : pattern(s, -1, i)))
                return -1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 3)
        return usage(rank, "missing arguments");
    const char *coll = argv[1];
    if (strcmp(coll, "alltoall") && strcmp(coll, "allgather") && strcmp(coll, "bcast") &&
        strcmp(coll, "scatter") && strcmp(coll, "gather")) {
        char why[128];
        snprintf(why, sizeof why,
                 "unknown collective '%.40s' (accepted: alltoall, allgather, bcast, scatter, "
                 "gather)",
                 coll);
        return usage(rank, why);
    }
    long iters = 100, skip = 10;
    size_t sizes[64], nsizes = 0;
    for (int a = 2; a < argc; a++) {
        char *end;
        if ((strcmp(argv[a], "--iters") == 0 || strcmp(argv[a], "--skip") == 0) && a + 1 < argc) {
            long v = strtol(argv[a + 1], &end, 10);
            if (*end || v < (strcmp(argv[a], "--iters") == 0 ? 1 : 0) || v > 1000000) {
                char why[128];
                snprintf(why, sizeof why,
                         "%s '%.20s': expected 1 to 1000000 (0 allowed for "
                         "--skip)",
                         argv[a], argv[a + 1]);
                return usage(rank, why);
            }
            *(strcmp(argv[a], "--iters") == 0 ? &iters : &skip) = v;
            a++;
            continue;
        }
        unsigned long v = strtoul(argv[a], &end, 10);
        if (*end || v < 1 || v > MAX_SIZE || nsizes == sizeof sizes / sizeof *sizes) {
            char why[128];
            snprintf(why, sizeof why, "size '%.20s': expected 1 to %u bytes (at most 64 sizes)",
                     argv[a], MAX_SIZE);
            return usage(rank, why);
        }
        sizes[nsizes++] = v;
    }
    if (nsizes == 0)
        return usage(rank, "no size given");
    size_t max = 0;
    for (size_t k = 0; k < nsizes; k++)
        max = sizes[k] > max ? sizes[k] : max;
    unsigned char *sbuf = malloc(max * (size_t) np), *rbuf = malloc(max * (size_t) np);
    if (sbuf == NULL || rbuf == NULL) {
        fprintf(stderr, "osu_peer: out of memory for %zu-byte buffers\n", max * (size_t) np);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t k = 0; k < nsizes; k++) {
        size_t size = sizes[k];
        fill(coll, rank, np, size, sbuf);
        double timer = 0;
        for (long i = 0; i < skip + iters; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            run(coll, rank, np, size, sbuf, rbuf);
            double t1 = MPI_Wtime();
            if (i >= skip)
                timer += t1 - t0;
        }
        int bad = check(coll, rank, np, size, rbuf) < 0, anybad = 0;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (anybad) {
            if (rank == 0)
                fprintf(stderr, "osu_peer: %s of %zu bytes delivered wrong bytes\n", coll, size);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        double lat = timer * 1e6 / (double) iters, mn, mx, sum;
        MPI_Reduce(&lat, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("size=%zu avg_us=%.2f min_us=%.2f max_us=%.2f iters=%ld\n", size, sum / np, mn,
                   mx, iters);
            fflush(stdout);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
