import Foundation
import KafkaIO

/// Sends messages to the messages topic (`messages.mode = kafka`), keyed by receiver id, in the message API's JSON.
public struct KafkaMessageSender: MessageSender {
    let producer: KafkaProducer
    let topic: String

    public init(producer: KafkaProducer, topic: String) {
        self.producer = producer
        self.topic = topic
    }

    public func send(_ message: OutgoingMessage) async throws -> String? {
        do {
            let body = message.request.encoded()
            // The HTTP API gets the sender as `onBehalfOf`; on the topic it travels as a header of that name.
            var headers = message.sender.map { [KafkaHeader("onBehalfOf", $0)] } ?? []
            if let trace = message.trace { headers += trace.kafkaHeaders }
            _ = try await producer.send(topic: topic, key: Data(message.receiver.id.utf8), value: body, headers: headers)
            return nil
        } catch let error as KafkaError {
            throw MessageSendError(code: "ERR_MESSAGE_PUBLISH_FAILED", error.description, retryable: !error.isFatal)
        }
    }
}
