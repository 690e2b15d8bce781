import Synchronization

/// The one way the worker waits for something with a deadline: an event (a stop asked for, a partition's records
/// all closed, a handover's batches all settled) or a timeout, whichever comes first.
///
/// `arm` registers `fire` with the event's source and returns how to take it back; it may call `fire` at once when
/// the event has already happened. On the timeout the registration is taken back, so an event that never comes
/// leaves nothing behind; `fire` after the end does nothing.
enum FirstOfEventOrTimeout {
    /// Says whether the event came first.
    static func wait(upTo timeout: Duration,
                     arm: (_ fire: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = Mutex<CheckedContinuation<Bool, Never>?>(continuation)
            let timer = Mutex<Task<Void, Never>?>(nil)
            let finish = { @Sendable (happened: Bool) -> Bool in
                guard let waiting = answer.withLock({ $0.take() }) else { return false }
                waiting.resume(returning: happened)
                return true
            }
            let disarm = arm {
                if finish(true) { timer.withLock { $0?.cancel() } }
            }
            let sleeper = Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                disarm()
                _ = finish(false)
            }
            // Fired while being armed: the sleeper has nothing to wait for.
            timer.withLock { $0 = sleeper }
            if answer.withLock({ $0 == nil }) { sleeper.cancel() }
        }
    }
}
