/// What librdkafka's callbacks reach through the configuration opaque: the log handler and the role's state.
///
/// The client handle keeps this object alive until the handle is destroyed, so callbacks may read it through an
/// unretained pointer.
final class RDCallbackContext: Sendable {
    /// Where log lines go, or `nil` for librdkafka's own standard-error logger.
    let logHandler: (@Sendable (KafkaLogMessage) -> Void)?
    /// The consumer, producer or admin state the role-specific callbacks work on.
    let owner: (any AnyObject & Sendable)?

    /// A context for one client handle.
    init(logHandler: (@Sendable (KafkaLogMessage) -> Void)?, owner: (any AnyObject & Sendable)?) {
        self.logHandler = logHandler
        self.owner = owner
    }

    /// Recovers the context from a callback's opaque pointer.
    static func from(_ opaque: UnsafeMutableRawPointer?) -> RDCallbackContext {
        Unmanaged<RDCallbackContext>.fromOpaque(opaque!).takeUnretainedValue()
    }

    /// The owner as the type the calling callback was registered for.
    func owner<T: AnyObject>(as type: T.Type) -> T {
        unsafeDowncast(owner!, to: type)
    }
}
