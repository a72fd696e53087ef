/* The fuzz targets of stepnet (tests/fuzz): each file defines LLVMFuzzerTestOneInput for one
 * parser that reads bytes from a user or a peer. Built with libFuzzer when STEPNET_FUZZ is on and
 * clang is the compiler, and always linked with replay.c into a program that feeds every file of
 * the target's corpus (tests/fuzz/corpus/TARGET/) once: the CTest replay. */
#ifndef STEPNET_FUZZ_H
#define STEPNET_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The memory limit the topology targets parse under: big enough for every corpus input, small
 * enough that the fuzzer explores parsing instead of building huge graphs. */
#define FUZZ_TOPO_BUDGET (64ull << 20)

#endif
