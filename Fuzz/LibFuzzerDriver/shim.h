#ifndef ATTACHE_LIBFUZZER_DRIVER_H
#define ATTACHE_LIBFUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, in the fuzzer runtime that `-sanitize=fuzzer` links.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

// The target's entry point: each fuzz target defines it with `@_cdecl("LLVMFuzzerTestOneInput")`.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Runs libFuzzer on the target. A Swift executable always has a `main` of its own, which replaces libFuzzer's, so
// the target's `main.swift` hands its command line over here.
static inline int attache_fuzz_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

#endif
