/// Stops the run with `message` when a property of the target does not hold.
///
/// Unlike `precondition`, whose message an optimised build drops, the message reaches the fuzzer's log.
public func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
