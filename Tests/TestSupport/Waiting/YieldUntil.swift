/// Yields until `condition` holds: for state another task reaches without a signal to await (a queued waiter).
public func yieldUntil(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}
