import Foundation

/// How the worker keeps glibc's heap from holding memory that batches gave back.
enum MemoryRelease {
    /// Returns the heap's free pages to the system after many batches left memory at once.
    static func trim() {
        #if os(Linux)
        _ = glibcMallocTrim(0)
        #endif
    }

    /// Two arenas instead of eight per core, and a fixed 128 KiB threshold above which allocations are mapped on
    /// their own. glibc raises that threshold each time a mapped block is freed, so librdkafka's fetch buffers and
    /// the cache's slabs soon land in the arenas, where one small live allocation next to them pins their pages
    /// after they are freed; with a thread's arena each, the same holes repeat in every arena. Measured on the
    /// intake bench: memory held per idle batch 440–620 bytes with the defaults, about 400 with these.
    /// An operator's own setting (`MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`, `GLIBC_TUNABLES`) wins.
    static func configureAllocator(environment: [String: String] = ProcessInfo.processInfo.environment) {
        #if os(Linux)
        guard environment["GLIBC_TUNABLES"] == nil else { return }
        if environment["MALLOC_ARENA_MAX"] == nil { _ = glibcMallopt(mallocArenaMax, 2) }
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil { _ = glibcMallopt(mallocMmapThreshold, 128 * 1024) }
        #endif
    }
}

#if os(Linux)
/// glibc's `malloc_trim` and `mallopt` (declared in `malloc.h`, which the Glibc module map leaves out).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32

@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32

/// `M_ARENA_MAX` and `M_MMAP_THRESHOLD` from `malloc.h`.
private let mallocArenaMax: Int32 = -8
private let mallocMmapThreshold: Int32 = -3
#endif
