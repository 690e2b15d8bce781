import CRdKafka

extension RDConfiguration {
    /// Installs the delivery-report and error callbacks; both run on the producer's poll thread.
    func installProducerCallbacks() {
        withConfigurationPointer { conf in
            rd_kafka_conf_set_dr_msg_cb(conf, deliveryReportCallback)
            rd_kafka_conf_set_error_cb(conf, producerErrorCallback)
        }
    }
}

/// One delivery report; the message opaque is the record's retained `DeliveryHandler`, released here exactly once.
private func deliveryReportCallback(client: OpaquePointer?, message: UnsafePointer<rd_kafka_message_t>?,
                                    opaque: UnsafeMutableRawPointer?) {
    guard let message, let token = message.pointee._private else { return }
    let handler = Unmanaged<DeliveryHandler>.fromOpaque(token).takeRetainedValue()
    let raw = message.pointee
    if raw.err == RD_KAFKA_RESP_ERR_NO_ERROR {
        handler.deliver(.success(KafkaDeliveryReport(topic: handler.topic, partition: raw.partition, offset: raw.offset)))
    } else {
        handler.deliver(.failure(KafkaError(raw.err)))
    }
}

/// Client-level errors; fatal ones (idempotence broken) mean the producer must be replaced.
private func producerErrorCallback(client: OpaquePointer?, code: Int32, reason: UnsafePointer<CChar>?,
                                   opaque: UnsafeMutableRawPointer?) {
    let shared = RDCallbackContext.from(opaque).owner(as: ProducerShared.self)
    let error = rd_kafka_resp_err_t(code)
    if error == RD_KAFKA_RESP_ERR__FATAL, let client, let fatal = KafkaError.fatal(on: client) {
        shared.errors.yield(fatal)
    } else {
        shared.errors.yield(KafkaError(error, detail: reason.map { String(cString: $0) }))
    }
}
