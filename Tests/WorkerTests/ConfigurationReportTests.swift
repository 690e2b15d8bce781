import Foundation
import Testing
import WireFormat
@testable import Worker

/// `attache config print`: every key's effective value, where it came from, and credentials never shown.
@Suite struct ConfigurationReportTests {
    private func report(json: String?, environment: [String: String]) throws -> ConfigurationReport {
        ConfigurationReport(try ConfigurationLoader.resolve(json: json.map { Data($0.utf8) }, environment: environment))
    }

    private func entry(_ key: String, in report: ConfigurationReport) throws -> ConfigurationReport.Entry {
        try #require(report.entries.first { $0.key == key })
    }

    @Test func everyKeyIsListedWithItsDefault() throws {
        let report = try report(json: nil, environment: [:])
        #expect(report.entries.map(\.key) == ConfigurationKey.all.map(\.path))
        #expect(try entry("limits.fileSizeMax", in: report) == .init(key: "limits.fileSizeMax", value: "100MiB", origin: .default))
        #expect(try entry("upload.stallTimeout", in: report).value == "30s")
        #expect(try entry("state.flushInterval", in: report).value == "50ms")
        #expect(try entry("worker.batchTTL", in: report).value == "24h")
        #expect(try entry("presign.mode", in: report).value == "endpoint")
        #expect(try entry("kafka.createTopics", in: report).value == "true")
    }

    @Test func theEnvironmentWinsOverTheFileAndIsNamed() throws {
        let report = try report(json: #"{"kafka": {"brokers": "file:9092", "groupId": "g"}, "limits": {"inlineMax": 2048}}"#,
                                environment: ["ATTACHE_KAFKA_BROKERS": "env:9092", "ATTACHE_SOURCES_ALLOW_HOSTS": "a, b"])
        #expect(try entry("kafka.brokers", in: report) == .init(key: "kafka.brokers", value: "env:9092",
                                                                 origin: .environment("ATTACHE_KAFKA_BROKERS")))
        #expect(try entry("kafka.groupId", in: report).origin == .file)
        #expect(try entry("limits.inlineMax", in: report).value == "2KiB")
        #expect(try entry("sources.allowHosts", in: report).value == "a,b")
    }

    @Test func credentialsAreRedactedAndUnsetOnesStayEmpty() throws {
        let report = try report(
            json: #"{"presign": {"s3": {"secretAccessKey": "s3cr3t"}}, "kafka": {"properties": {"sasl.password": "pw", "sasl.mechanisms": "PLAIN"}}}"#,
            environment: ["AWS_ACCESS_KEY_ID": "AKIA1", "ATTACHE_MESSAGES_API_KEY": "k1",
                          "ATTACHE_KAFKA_PROPERTY_SASL_USERNAME": "alice-9", "ATTACHE_KAFKA_PROPERTY_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": "u"])
        #expect(try entry("presign.s3.secretAccessKey", in: report).value == ConfigurationReport.redacted)
        #expect(try entry("presign.s3.accessKeyId", in: report) == .init(key: "presign.s3.accessKeyId", value: ConfigurationReport.redacted,
                                                                          origin: .environment("AWS_ACCESS_KEY_ID")))
        #expect(try entry("messages.apiKey", in: report).value == ConfigurationReport.redacted)
        #expect(try entry("kafka.properties.sasl.password", in: report).value == ConfigurationReport.redacted)
        #expect(try entry("kafka.properties.sasl.username", in: report).origin == .environment("ATTACHE_KAFKA_PROPERTY_SASL_USERNAME"))
        #expect(try entry("kafka.properties.sasl.mechanisms", in: report).value == "PLAIN")
        for secret in ["s3cr3t", "AKIA1", "alice-9"] {
            #expect(!report.text.contains(secret))
        }
        let unset = try self.report(json: nil, environment: [:])
        #expect(try entry("presign.s3.secretAccessKey", in: unset).value == "")
    }

    @Test func theCredentialsInsideEveryURLAreHiddenInAnyKey() throws {
        let report = try report(
            json: #"{"presign": {"url": "https://svc:presign-pw@presign.example/p?token=presign-tok&a=1"},"#
                + #" "kafka": {"properties": {"ssl.crl.location": "https://crl.example/crl.pem?sig=crl-sig"}},"#
                + #" "dashboard": {"token": "dash-tok"}}"#,
            environment: ["ATTACHE_MESSAGES_URL": "https://api.example/v3/messages?apikey=msg-key#frag-secret",
                          "ATTACHE_KAFKA_BROKERS": "sasl://alice:broker-pw1@b1:9092,sasl://alice:broker-pw2@b2:9092",
                          "ATTACHE_SOURCES_RESIGN_URL": "http://resign.example/?key=resign-key"])
        #expect(try entry("presign.url", in: report).value == "https://***@presign.example/p?token=***&a=***")
        #expect(try entry("messages.url", in: report).value == "https://api.example/v3/messages?apikey=***#***")
        #expect(try entry("kafka.brokers", in: report).value == "sasl://***@b1:9092,sasl://***@b2:9092")
        #expect(try entry("sources.resignUrl", in: report).value == "http://resign.example/?key=***")
        #expect(try entry("kafka.properties.ssl.crl.location", in: report).value == "https://crl.example/crl.pem?sig=***")
        #expect(try entry("dashboard.token", in: report) == .init(key: "dashboard.token", value: ConfigurationReport.redacted, origin: .file))
        for secret in ["presign-pw", "presign-tok", "crl-sig", "dash-tok", "msg-key", "frag-secret", "broker-pw1", "broker-pw2", "resign-key"] {
            #expect(!report.text.contains(secret), "\(secret)")
        }
        #expect(try entry("kafka.jobsTopic", in: report).value == "attache.jobs", "values without URLs are shown as they are")
    }

    @Test func printedValuesLoadBackToTheSameConfiguration() throws {
        let environment = ["ATTACHE_KAFKA_BROKERS": "b:9092", "ATTACHE_PRESIGN_URL": "http://p/", "ATTACHE_MESSAGES_URL": "http://m/",
                           "ATTACHE_UPLOAD_STALL_TIMEOUT": "1500ms", "ATTACHE_STAGING_CACHE_MAX": "1000"]
        let resolved = try ConfigurationLoader.resolve(json: nil, environment: environment)
        var again: [String: String] = [:]
        for entry in ConfigurationReport(resolved).entries where !entry.value.isEmpty && !entry.key.hasPrefix("kafka.properties.") {
            again[ConfigurationValue.environmentName(of: entry.key)] = entry.value
        }
        #expect(try ConfigurationLoader.load(json: nil, environment: again) == resolved.configuration)
    }

    @Test func clientsNeedOnlyTheKafkaSettings() throws {
        let resolved = try ConfigurationLoader.resolve(json: nil, environment: ["ATTACHE_KAFKA_BROKERS": "b:9092"])
        #expect(throws: ConfigurationError.self) { try resolved.validated() }
        #expect(try resolved.validatedForKafkaClient().kafka.brokers == "b:9092")
        let bad = try ConfigurationLoader.resolve(json: nil, environment: ["ATTACHE_KAFKA_BROKERS": "b:9092", "ATTACHE_KAFKA_JOBS_TOPIC": "bad topic"])
        #expect(throws: ConfigurationError(key: "kafka.jobsTopic", "'bad topic' is not a valid topic name")) { try bad.validatedForKafkaClient() }
    }
}
