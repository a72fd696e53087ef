/* The fuzz targets of stepnet (tests/fuzz): each file defines LLVMFuzzerTestOneInput for one
 * parser that reads bytes from a user or a peer. Built with libFuzzer when STEPNET_FUZZ is on and
 * clang is the compiler, and always linked with replay.c into a program that feeds every file of
 * the target's corpus (tests/fuzz/corpus/TARGET/) once: the CTest replay. */
#ifndef STEPNET_TESTS_FUZZ_FUZZ_H
#define STEPNET_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The memory limit the topology targets parse under: big enough for every family at sizes that
 * exercise its builder (star:7, torus:100x100, hypercube:10), small enough that one accepted input
 * builds in a fraction of a second in the sanitized libFuzzer build, so that the fuzzer explores
 * parsing instead of building huge graphs. A valid but huge spec is refused by the budget check
 * before anything is built: star:8 (40320 nodes, about 8 MB by sn_topo_mem_estimate) took over a
 * second per run under ASan with 64 MiB and ran into the fuzzer's per-input timeout on a loaded
 * machine; corpus/topo_spec/regress_star8_budget keeps it refused. */
#define FUZZ_TOPO_BUDGET (4ull << 20)

#endif
