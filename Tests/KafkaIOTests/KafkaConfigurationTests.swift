import Testing
@testable import KafkaIO

@Suite struct KafkaConfigurationTests {
    @Test func anUnknownPropertyIsRefusedByName() {
        let configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:9", properties: ["no.such.thing": "1"])
        #expect(throws: KafkaError.self) { try configuration.validate() }
        do {
            try configuration.validate()
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.hasPrefix("no.such.thing: "))
        }
    }

    @Test func aBadValueIsRefusedByNameWithLibrdkafkasReason() {
        let configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:9", properties: ["linger.ms": "soon"])
        do {
            try configuration.validate()
            Issue.record("validation accepted linger.ms=soon")
        } catch {
            #expect(error.message.hasPrefix("linger.ms: "))
            #expect(error.message.count > "linger.ms: ".count)
        }
    }

    @Test func securityPropertiesPassThroughUnchanged() throws {
        let configuration = KafkaConfiguration(
            bootstrapServers: "127.0.0.1:9", groupID: "attache",
            properties: ["security.protocol": "SASL_SSL", "sasl.mechanisms": "PLAIN", "sasl.username": "u",
                         "sasl.password": "p"])
        try configuration.validate()
        let resolved = try configuration.resolvedProperties(for: .consumer)
        #expect(resolved.contains { $0 == ("security.protocol", "SASL_SSL") })
        #expect(resolved.contains { $0 == ("sasl.mechanisms", "PLAIN") })
    }

    @Test func theConsumerCommitsOnlyItsWatermarksAndStartsAtTheEarliestOffset() throws {
        let resolved = Dictionary(try KafkaConfiguration(bootstrapServers: "b:9", groupID: "g")
            .resolvedProperties(for: .consumer), uniquingKeysWith: { _, last in last })
        #expect(resolved["enable.auto.commit"] == "false")
        #expect(resolved["enable.auto.offset.store"] == "false")
        #expect(resolved["auto.offset.reset"] == "earliest")
        #expect(resolved["partition.assignment.strategy"] == "cooperative-sticky")
        #expect(resolved["group.id"] == "g")
        #expect(resolved["bootstrap.servers"] == "b:9")
    }

    @Test func rawPropertiesOverrideDefaultsButCannotTurnOnAutoCommit() throws {
        let overridden = Dictionary(try KafkaConfiguration(bootstrapServers: "b:9", groupID: "g",
                                                           properties: ["auto.offset.reset": "latest"])
            .resolvedProperties(for: .consumer), uniquingKeysWith: { _, last in last })
        #expect(overridden["auto.offset.reset"] == "latest")
        #expect(throws: KafkaError.self) {
            try KafkaConfiguration(bootstrapServers: "b:9", groupID: "g", properties: ["enable.auto.commit": "true"])
                .resolvedProperties(for: .consumer)
        }
    }

    @Test func aConsumerWithoutAGroupIsRefused() {
        #expect(throws: KafkaError.self) {
            _ = try KafkaConsumer(configuration: KafkaConfiguration(bootstrapServers: "127.0.0.1:9"), topics: ["t"])
        }
    }
}
