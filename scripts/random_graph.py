#!/usr/bin/env python3
"""Writes a connected random graph as a `file:` topology: a random spanning tree plus n/2 extra
edges, from a fixed seed (scripts/bench_synth.sh and scripts/synth_table.sh share it, so their
random instances are the same graphs for the same (n, seed)).

    scripts/random_graph.py N SEED PATH
"""
import random
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: random_graph.py N SEED PATH")
    n, seed, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    if n < 2:
        sys.exit("random_graph.py: N %d: at least 2 nodes" % n)
    r = random.Random(seed)
    edges = set()
    for i in range(1, n):
        edges.add((r.randrange(i), i))
    while len(edges) < n - 1 + n // 2:
        a, b = r.sample(range(n), 2)
        edges.add((min(a, b), max(a, b)))
    with open(path, "w") as fh:
        fh.write("# a connected random graph: a random spanning tree plus n/2 edges, seed %d\n" % seed)
        fh.write("".join(f"{a} {b}\n" for a, b in sorted(edges)))


main()
