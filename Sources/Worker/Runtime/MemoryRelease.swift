/// Returns the heap's free pages to the system after many batches left memory at once.
enum MemoryRelease {
    static func trim() {
        #if os(Linux)
        _ = glibcMallocTrim(0)
        #endif
    }
}

#if os(Linux)
/// glibc's `malloc_trim` (declared in `malloc.h`, which the Glibc module map leaves out).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
#endif
