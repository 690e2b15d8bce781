import WireFormat

extension TraceContext {
    /// `traceparent` and, if there is one, `tracestate`, as request headers (W3C Trace Context over HTTP). Both
    /// were checked to be printable ASCII when the context was made, so they are safe as header values.
    public var httpHeaders: [HTTPHeader] {
        var headers = [HTTPHeader("traceparent", traceparent)]
        if let tracestate { headers.append(HTTPHeader("tracestate", tracestate)) }
        return headers
    }
}
