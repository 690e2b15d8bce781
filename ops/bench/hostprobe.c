/*
 * What this host charges for the operations a small job is made of, so that runs on different machines or days can
 * be compared: a step of dependent arithmetic (the core's speed), a load that misses the caches, a system call, a
 * first touch of a page, one thread waking another and being woken back, and a small malloc/free. Each figure is
 * the median of 7 rounds, on one thread (two for the wake), printed as `name value` lines in nanoseconds. Built
 * and run by ops/bench (attache_bench/host_probe.py).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 7

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values) {
    qsort(values, ROUNDS, sizeof(double), compare);
    return values[ROUNDS / 2];
}

static volatile uint64_t sink;

/* A chain of multiply-shift-adds, each needing the last (and with no closed form for the compiler to find): the
 * core's speed, whatever the memory does. */
static double arithmetic_ns(void) {
    const int steps = 20000000;
    uint64_t x = 1;
    double start = now_ns();
    for (int i = 0; i < steps; i++) x = x * 6364136223846793005u + (x >> 29);
    sink = x;
    return (now_ns() - start) / steps;
}

/* Loads that each need the one before, in a random cycle through 64 MiB: far past the caches, so each waits for
 * memory (and for the page walk). Shared caches and memory bandwidth are where other guests on a host show. */
static double memory_load_ns(void) {
    enum { count = (64 << 20) / sizeof(uint32_t) };
    static uint32_t *next;
    if (next == NULL) {
        next = malloc(count * sizeof *next);
        if (next == NULL) return -1;
        /* Sattolo's shuffle: one cycle through every slot. */
        for (uint32_t i = 0; i < count; i++) next[i] = i;
        uint64_t random = 88172645463325252u;
        for (uint32_t i = count - 1; i > 0; i--) {
            random ^= random << 13, random ^= random >> 7, random ^= random << 17;
            uint32_t j = (uint32_t)(random % i), swap = next[i];
            next[i] = next[j], next[j] = swap;
        }
    }
    const int loads = 2000000;
    uint32_t at = 0;
    double start = now_ns();
    for (int i = 0; i < loads; i++) at = next[at];
    sink = at;
    return (now_ns() - start) / loads;
}

static double syscall_ns(void) {
    const int calls = 200000;
    double start = now_ns();
    for (int i = 0; i < calls; i++) syscall(SYS_getppid);
    return (now_ns() - start) / calls;
}

static double page_fault_ns(void) {
    const size_t size = 64u << 20, page = 4096;
    char *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return -1;
    /* Small pages only: a huge page would fault 512 pages' worth at once. */
    madvise(memory, size, MADV_NOHUGEPAGE);
    double start = now_ns();
    for (size_t offset = 0; offset < size; offset += page) memory[offset] = 1;
    double elapsed = now_ns() - start;
    munmap(memory, size);
    return elapsed / (double)(size / page);
}

/* Blocks live a while (a ring of 256) and vary in size, as a job's do; freed blocks go back to the allocator's
 * per-thread cache, which is the common case it is meant to show. */
static double malloc_free_ns(void) {
    enum { pairs = 1000000, ring = 256 };
    static void *volatile held[ring];
    double start = now_ns();
    for (int i = 0; i < pairs; i++) {
        free(held[i % ring]);
        held[i % ring] = malloc(32 + (size_t)(i & 127) * 4);
    }
    double elapsed = now_ns() - start;
    for (int i = 0; i < ring; i++) {
        free(held[i]);
        held[i] = NULL;
    }
    return elapsed / pairs;
}

struct pingpong {
    int ping, pong;
    int trips;
};

static void *ponger(void *argument) {
    struct pingpong *p = argument;
    uint64_t value;
    for (int i = 0; i < p->trips; i++) {
        if (read(p->ping, &value, sizeof value) != sizeof value) break;
        if (write(p->pong, &value, sizeof value) != sizeof value) break;
    }
    return NULL;
}

/* One round trip: this thread wakes the other, which wakes this one back; each waits blocked in between. */
static double wake_round_trip_ns(void) {
    struct pingpong p = {eventfd(0, 0), eventfd(0, 0), 20000};
    if (p.ping < 0 || p.pong < 0) return -1;
    pthread_t thread;
    if (pthread_create(&thread, NULL, ponger, &p) != 0) return -1;
    uint64_t one = 1, value;
    double start = now_ns();
    for (int i = 0; i < p.trips; i++) {
        if (write(p.ping, &one, sizeof one) != sizeof one) break;
        if (read(p.pong, &value, sizeof value) != sizeof value) break;
    }
    double elapsed = now_ns() - start;
    pthread_join(thread, NULL);
    close(p.ping);
    close(p.pong);
    return elapsed / p.trips;
}

int main(void) {
    struct {
        const char *name;
        double (*measure)(void);
    } probes[] = {
        {"arithmetic", arithmetic_ns},
        {"memory_load", memory_load_ns},
        {"syscall", syscall_ns},
        {"page_fault", page_fault_ns},
        {"wake_round_trip", wake_round_trip_ns},
        {"malloc_free", malloc_free_ns},
    };
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        double values[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) values[round] = probes[i].measure();
        printf("%s %.1f\n", probes[i].name, median(values));
    }
    return 0;
}
