#!/usr/bin/env bash
# Peer benchmark: stepnet next to Open MPI on the same machine, in one run, round by round.
#   stepnet: `stepnet run` with --security none and with the default (sodium), one run per size;
#            its figure is node_us_median, each node's own time (its completion minus its start of
#            slot 1, after the in-band barrier) averaged over the nodes: the quantity OSU calls
#            "Avg Latency" (docs/runtime.md). Beside it coll_us_median, the stricter span (the
#            latest completion minus the earliest start), and wall_us_median (from the
#            coordinator's START to the last COMPLETE).
#   Open MPI: bench/osu_peer.c under mpirun (--mca btl tcp,self on lo: TCP over loopback, as stepnet),
#            timed the way the OSU Micro-Benchmarks time a collective: MPI_Barrier, then the call
#            timed by each rank; the figure is the average over ranks of each rank's mean
#            (OSU's "Avg Latency"), with the maximum over ranks beside it.
#   mpi_lin: Open MPI's MPI_Alltoall forced to its basic linear algorithm (coll_tuned algorithm 1:
#            every rank sends one message to every other), at the same size: the very frames of
#            one slot of te or mnb on complete:N, so the like-for-like pattern for both. Open MPI's
#            own choice at small sizes may combine messages (Bruck, recursive doubling: log2 N
#            rounds), which the papers' model excludes (one packet per link and slot, no
#            combining).
#   raw:     build/stepnet-rawprobe barrier on the same topology and size, polling as the nodes do:
#            one slot of frames on every link with no protocol, verification or termination (its
#            time per slot over back-to-back slots). te and mnb on complete:N are one such slot, so
#            raw/mpi is the floor of the model's one-frame-per-link slot on this machine: where it
#            is above 1, no implementation of that slot over one TCP connection per link can reach
#            Open MPI's figure, whatever its protocol.
#   mpi_lin for allgather: Open MPI's MPI_Allgather forced to its basic linear algorithm
#            (coll_tuned allgather algorithm 1), the same messages as mnb's one slot on complete:N.
# Cases, for N processes: alltoall (stepnet te) and allgather (stepnet mnb) on complete:N; bcast,
# scatter and gather on complete:N, on hypercube:log2(N) and on the torus the N processes fit
# (AxB, A the largest power of two with A*A <= N): the topologies a user would pick for them.
# Each stepnet case runs in both execution modes (--sync): slot, the lock-step slot barrier of the
# papers' model, and dataflow, each process sending as soon as what it sends has arrived, as a
# communication library executes a schedule (docs/model.md).
# Every figure is the median over --rounds rounds; within a round the four runs of a case and
# size follow one another, so that they see the same machine state. Open MPI (openmpi-bin,
# libopenmpi-dev) is installed here when missing, never by setup.sh or the tests.
#
#   scripts/bench/peers.sh [--rounds R] [--np "8 16"] [--sizes "8 ... 1048576"] [--reps K]
#                          [--iters I] [--sync "slot dataflow"] [--colls "alltoall ..."]
#                          [--csv FILE]
#     --rounds R  rounds (default 3)          --reps K   stepnet repetitions per run (default 5)
#     --np LIST   process counts (8 16)       --iters I  MPI iterations per size (default 20)
#     --sizes L   bytes per message (8 64 512 4096 32768 262144 1048576)
#     --sync L    stepnet's execution modes (slot dataflow)
#     --colls L   the MPI collectives compared (alltoall allgather bcast scatter gather)
#     --sodium yes|no  also run stepnet with its default security (yes; no halves the runs)
#     --csv FILE  also write the table as CSV
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/peers
rounds=3 nps="8 16" sizes="8 64 512 4096 32768 262144 1048576" reps=5 iters=20 csv=""
syncs="slot dataflow" colls="alltoall allgather bcast scatter gather" sodium=yes
# --np: powers of two (the rooted cases run on hypercube:log2 N)
bench_args rounds reps sizes csv "--iters iters int:1:100000" "--np nps list:2|4|8|16|32|64" \
    "--sync syncs list:slot|dataflow" "--colls colls list:alltoall|allgather|bcast|scatter|gather" \
    "--sodium sodium enum:yes|no" \
    -- "$@"
[ -x build/stepnet ] && [ -x build/stepnet-node ] && [ -x build/stepnet-rawprobe ] || scripts/setup.sh >/dev/null

# Open MPI: only for this benchmark, only when it runs
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    echo "bench/peers: installing openmpi-bin libopenmpi-dev (for this benchmark only)" >&2
    $SUDO apt-get update >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
        openmpi-bin libopenmpi-dev >/dev/null
fi
mpicc -O2 -Wall -Wextra -o build/osu_peer bench/osu_peer.c
mpi_version=$(mpirun --version 2>/dev/null | head -n1)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stepnet_run KEYFILE SECURITY TOPO COLL SIZE SYNC: one run; appends "node span wall algorithm"
# to KEYFILE
stepnet_run() {
    local out
    out=$(build/stepnet run --topo "$3" --coll "$4" --size "$5" --security "$2" --reps "$reps" \
        --sync "$6" --warmup 1 --probes 2 --json 2>"$tmp/err" </dev/null) || true
    if [ "$(jget verified "$out")" != true ]; then
        echo "bench/peers: stepnet run --topo $3 --coll $4 --size $5 --security $2 --sync $6" \
            "failed:" >&2
        tail -n 3 "$tmp/err" >&2
        exit 1
    fi
    echo "$(jget node_us_median "$out") $(jget coll_us_median "$out") $(jget wall_us_median "$out")" \
        "$(jget algorithm "$out")" >>"$1"
}
# mpi_run KEYPREFIX NP COLL [MCA...]: one mpirun over every size; appends "avg max" to
# KEYPREFIX.SIZE.
# Loopback only (lo), as stepnet's 127.0.0.1: interfaces that come and go (other users' network
# namespaces) break Open MPI's wiring up. A failed mpirun is said and run again, three times at
# most.
mpi_run() {
    local line s try
    for try in 1 2 3; do
        # shellcheck disable=SC2086 # $sizes: one argument per size
        mpirun --allow-run-as-root --oversubscribe --mca btl tcp,self \
            --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo "${@:4}" -np "$2" \
            build/osu_peer "$3" $sizes --iters "$iters" --skip 3 </dev/null >"$tmp/mpi" \
            2>"$tmp/err" && break
        echo "bench/peers: mpirun -np $2 osu_peer $3 failed (attempt $try of 3):" >&2
        tail -n 5 "$tmp/err" >&2
        [ "$try" = 3 ] && exit 1
    done
    while read -r line; do
        s=$(kv size "$line")
        echo "$(kv avg_us "$line") $(kv max_us "$line")" >>"$1.$s"
    done <"$tmp/mpi"
}

# raw_run KEYFILE TOPO SIZE: the raw barrier's time per slot, appended to KEYFILE (fewer slots for
# larger frames: 200 up to 4 KiB, 40 up to 256 KiB, 10 above)
raw_run() {
    local slots=200 out
    [ "$3" -gt 4096 ] && slots=40
    [ "$3" -gt 262144 ] && slots=10
    out=$(build/stepnet-rawprobe barrier --topo "$2" --size "$3" --slots "$slots" --spin-us 1000 \
        2>"$tmp/err" </dev/null) || {
        echo "bench/peers: stepnet-rawprobe barrier --topo $2 --size $3 failed:" >&2
        tail -n 3 "$tmp/err" >&2
        exit 1
    }
    kv us_per_slot "$out" >>"$1"
}

cases() { # the cases for N processes: LABEL TOPO STEPNET-COLL MPI-COLL
    local n=$1 d=0 m=$1 a=1 c
    while [ "$m" -gt 1 ]; do m=$((m / 2)); d=$((d + 1)); done
    while [ $((4 * a * a)) -le "$n" ]; do a=$((2 * a)); done
    for c in $colls; do
        case $c in
        alltoall) echo "alltoall complete:$n te alltoall" ;;
        allgather) echo "allgather complete:$n mnb allgather" ;;
        *)
            echo "$c complete:$n $c $c"
            echo "$c hypercube:$d $c $c"
            [ "$a" -ge 2 ] && echo "$c torus:${a}x$((n / a)) $c $c"
            ;;
        esac
    done
}

started=$(date +%s)
dyn=(--mca coll_tuned_use_dynamic_rules 1)
for r in $(seq "$rounds"); do
    for n in $nps; do
        case " $colls " in *" alltoall "*)
            mpi_run "$tmp/$n.lin.alltoall" "$n" alltoall "${dyn[@]}" --mca coll_tuned_alltoall_algorithm 1 ;;
        esac
        case " $colls " in *" allgather "*)
            mpi_run "$tmp/$n.lin.allgather" "$n" allgather "${dyn[@]}" --mca coll_tuned_allgather_algorithm 1 ;;
        esac
        while read -r label topo coll mcoll; do
            key="$tmp/$n.$label.$topo"
            mpi_run "$key.mpi" "$n" "$mcoll"
            for s in $sizes; do
                for y in $syncs; do
                    stepnet_run "$key.$y.none.$s" none "$topo" "$coll" "$s" "$y"
                    [ "$sodium" = no ] ||
                        stepnet_run "$key.$y.sodium.$s" sodium "$topo" "$coll" "$s" "$y"
                done
                raw_run "$key.raw.$s" "$topo" "$s"
            done
        done < <(cases "$n")
    done
    echo "bench/peers: round $r of $rounds done ($(($(date +%s) - started)) s)" >&2
done

col() { awk -v c="$1" '{print $c}' "$2" | median; } # col N FILE: median of column N
echo "stepnet $(build/stepnet --version 2>/dev/null | head -n1) vs $mpi_version; $(nproc) cores, $(uname -m)"
echo "medians of $rounds rounds; stepnet: node_us_median of $reps repetitions per run (coll_us_median,"
echo "the span, and wall_us_median beside it); Open MPI: OSU-style average over ranks of $iters timed"
echo "iterations (max over ranks beside)"
echo
hdr="np,collective,topology,sync,algorithm,size,stepnet_none_node_us,stepnet_none_span_us,stepnet_none_wall_us,stepnet_sodium_node_us,raw_slot_us,mpi_avg_us,mpi_max_us,mpi_linear_avg_us,none_over_mpi,span_over_mpi,sodium_over_mpi,raw_over_mpi,none_over_mpi_linear"
[ -n "$csv" ] && echo "$hdr" >"$csv"
printf '%3s %-9s %-12s %-8s %-14s %8s %9s %9s %9s %9s %9s %9s %9s %9s %8s %8s %7s %7s %7s\n' np \
    coll topology sync algorithm size none_us none_span none_wall sodium_us raw_slot mpi_avg \
    mpi_max mpi_lin none/mpi span/mpi sod/mpi raw/mpi none/lin
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
for n in $nps; do
    while read -r label topo coll mcoll; do
        key="$tmp/$n.$label.$topo"
        for s in $sizes; do
            for y in $syncs; do
                nn=$(col 1 "$key.$y.none.$s") nc=$(col 2 "$key.$y.none.$s")
                nw=$(col 3 "$key.$y.none.$s") sn=- rs=-
                if [ "$sodium" = yes ]; then
                    sn=$(printf '%.1f' "$(col 1 "$key.$y.sodium.$s")")
                    rs=$(ratio "$sn" "$(col 1 "$key.mpi.$s")")
                fi
                rw=$(col 1 "$key.raw.$s")
                algo=$(awk '{print $4}' "$key.$y.none.$s" | head -n1)
                ma=$(col 1 "$key.mpi.$s") mx=$(col 2 "$key.mpi.$s")
                rn=$(ratio "$nn" "$ma") rc=$(ratio "$nc" "$ma")
                rr=$(ratio "$rw" "$ma")
                # the linear alltoall and allgather: the pattern of one slot on complete:N
                ml=- rl=-
                if [ -s "$tmp/$n.lin.$label.$s" ]; then
                    ml=$(col 1 "$tmp/$n.lin.$label.$s") rl=$(ratio "$nn" "$ml")
                fi
                printf '%3s %-9s %-12s %-8s %-14s %8s %9.1f %9.1f %9.1f %9s %9.1f %9.1f %9.1f %9s %8s %8s %7s %7s %7s\n' \
                    "$n" "$label" "$topo" "$y" "$algo" "$s" "$nn" "$nc" "$nw" "$sn" "$rw" "$ma" \
                    "$mx" "$ml" "$rn" "$rc" "$rs" "$rr" "$rl"
                [ -n "$csv" ] &&
                    echo "$n,$label,$topo,$y,$algo,$s,$nn,$nc,$nw,$sn,$rw,$ma,$mx,$ml,$rn,$rc,$rs,$rr,$rl" >>"$csv"
            done
        done
    done < <(cases "$n")
done
echo
echo "none/mpi, sod/mpi: stepnet's per-node time (--security none, default sodium) over Open MPI's"
echo "average, the same quantity (each process times its own part of the collective after a barrier;"
echo "the processes are averaged); below 1 stepnet is faster. span/mpi: stepnet's stricter span (first"
echo "node's start to the last node's completion) over the same average. Start-up excluded in all."
echo "raw_slot, raw/mpi: one slot of the raw barrier (stepnet-rawprobe: a frame on every link, no"
echo "protocol) on the same topology and size; te and mnb on complete:N are one such slot, so where"
echo "raw/mpi is above 1 that slot over TCP cannot reach Open MPI's figure on this machine."
echo "mpi_lin, none/lin: Open MPI's alltoall (allgather) forced to its linear algorithm (one message"
echo "from every rank to every other: the frames of te's (mnb's) one slot on complete:N) and stepnet's"
echo "per-node time over it: the same pattern on both sides; Open MPI's own choice (mpi_avg) may combine."
echo "sync: slot, the lock-step slot barrier (every link carries a frame in every slot, empty or not);"
echo "dataflow, each process sends a packet as soon as it holds it and its port is free (docs/model.md)."
