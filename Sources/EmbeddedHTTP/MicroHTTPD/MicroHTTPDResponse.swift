import CMicroHTTPD
import Glibc

/// Turns an `ServerResponse` into a libmicrohttpd response and queues it on a connection.
///
/// Called only from the access handler, on the connection's thread, when MHD allows queueing (no upload data
/// pending in the call).
enum MicroHTTPDResponse {
    /// Queues `response` on `connection`; a body that cannot be prepared answers 500 instead. A streamed body is
    /// handed the connection's handle first (``HTTPBodyProducer/connected(_:)``), which `exchange` ends with the request.
    static func queue(_ response: ServerResponse, on connection: OpaquePointer, for exchange: RequestExchange) -> MHD_Result {
        if case .stream(_, let producer) = response.body {
            producer.connected(exchange.connectionHandle(of: connection))
        }
        guard let prepared = makeResponse(response.body) else {
            return queue(.text(500, "response body unavailable\n"), on: connection, for: exchange)
        }
        for header in response.headers {
            // MHD refuses headers it manages itself (Content-Length); those are derived from the body.
            _ = MHD_add_response_header(prepared, header.name, header.value)
        }
        let result = MHD_queue_response(connection, UInt32(clamping: response.status), prepared)
        MHD_destroy_response(prepared)
        return result
    }

    private static func makeResponse(_ body: HTTPResponseBody) -> OpaquePointer? {
        switch body {
        case .bytes(let bytes):
            return bytes.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(
                    raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .file(let path):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            var status = stat()
            guard fstat(descriptor, &status) == 0,
                  let response = MHD_create_response_from_fd(Int(status.st_size), descriptor)
            else {
                close(descriptor)
                return nil
            }
            // The response owns the descriptor now and closes it when it is destroyed.
            return response
        case .stream(let length, let producer):
            let box = Unmanaged.passRetained(ProducerBox(producer)).toOpaque()
            guard let response = MHD_create_response_from_callback(
                length ?? attache_mhd_size_unknown(), 32 * 1024, produceBody, box, releaseProducer)
            else {
                Unmanaged<ProducerBox>.fromOpaque(box).release()
                return nil
            }
            return response
        }
    }
}

/// Keeps a body producer alive for as long as MHD holds the response.
private final class ProducerBox {
    let producer: any HTTPBodyProducer
    init(_ producer: any HTTPBodyProducer) { self.producer = producer }
}

/// MHD's content reader: asks the producer for the next block.
private func produceBody(
    _ context: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int
) -> Int {
    guard let context, let buffer, max > 0 else { return attache_mhd_reader_end_with_error() }
    let box = Unmanaged<ProducerBox>.fromOpaque(context).takeUnretainedValue()
    switch box.producer.produce(into: UnsafeMutableRawBufferPointer(start: buffer, count: max), at: position) {
    case .bytes(let count): return count > 0 ? min(count, max) : attache_mhd_reader_end_with_error()
    case .end: return attache_mhd_reader_end_of_stream()
    case .failure: return attache_mhd_reader_end_with_error()
    }
}

/// MHD's free callback for a content reader: balances `passRetained` in `makeResponse`.
private func releaseProducer(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<ProducerBox>.fromOpaque(context).release()
}
