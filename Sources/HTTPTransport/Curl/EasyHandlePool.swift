import CCurl
import Synchronization

/// Finished easy handles, reset and kept for the next transfers of one multi loop.
///
/// A fresh handle is a 5 KiB allocation and its set-up, freed again when its transfer ends: blocks that large go
/// past glibc's per-thread caches, into the allocator's slow paths (`malloc_consolidate`, `unlink_chunk`). A kept
/// handle spares that. It does not spare the transfer's buffers: libcurl 7.88 allocates the receive buffer
/// (16 KiB + 1) when a transfer connects and the upload buffer on its first send, and frees both when the transfer
/// is done (`multi_done`), whatever becomes of the handle. In the small-file bench those are four 16 KiB blocks
/// a job (the presign call and the upload), with or without the pool. `curl_easy_reset` clears every option a
/// transfer set — URL, headers, callbacks, body, credentials — and nothing else of the handle's state carries over
/// (no cookie engine is ever enabled, and connections belong to the multi handle's cache).
///
/// Handles are taken and given back on the loop's thread; the lock only makes a handle released elsewhere safe.
final class EasyHandlePool: Sendable {
    private struct Handles: @unchecked Sendable {
        var free: [UnsafeMutableRawPointer] = []
    }

    private let handles = Mutex(Handles())
    /// The most handles kept: beyond that, a finished handle is cleaned up.
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// A reset handle from the pool; nil when none is kept (the caller makes a new one).
    func take() -> UnsafeMutableRawPointer? {
        handles.withLock { $0.free.popLast() }
    }

    /// Gives a handle back, no longer attached to a multi handle: reset and kept, or cleaned up when the pool is full.
    func giveBack(_ handle: UnsafeMutableRawPointer) {
        curl_easy_reset(handle)
        let kept = handles.withLock { handles -> Bool in
            guard handles.free.count < capacity else { return false }
            handles.free.append(handle)
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }

    /// Handles kept right now.
    var count: Int { handles.withLock { $0.free.count } }

    deinit {
        handles.withLock { $0.free.forEach { curl_easy_cleanup($0) } }
    }
}
