import Foundation
import HTTPTransport
@testable import Records
import Testing
import UploadEngine
import WireFormat
@testable import Worker

/// Every numeric key at the edge of 64 bits (`docs/contract.md` §7): the start either accepts the value or stops
/// with a message naming the key — never a trap on overflow, in parsing, validation or what is computed from it.
@Suite struct ConfigurationRangeTests {
    private static let minimal = ["ATTACHE_KAFKA_BROKERS": "127.0.0.1:9092", "ATTACHE_PRESIGN_URL": "http://127.0.0.1:1/presign",
                                  "ATTACHE_MESSAGES_URL": "http://127.0.0.1:1/messages"]

    /// Every key whose value is a number, a size or a duration.
    static let numericKeys = [
        "limits.fileSizeMax", "limits.fileCountMax", "limits.attachmentsPerMessage", "limits.inlineMax",
        "limits.filesPerJob", "limits.messageOptionsMax", "events.maxBytes", "upload.concurrency", "upload.stallTimeout",
        "upload.multipartThreshold", "upload.partSize", "presign.minValidity", "retry.maxAttempts", "retry.baseDelay", "retry.maxDelay", "worker.maxTransfers",
        "worker.maxInFlightBatches", "worker.shutdownGrace", "worker.batchTTL", "staging.cacheMax", "staging.maxOpenSources",
        "dashboard.maxClients",
    ]

    /// Huge values in every form a value can take.
    static let hugeValues = [
        "9223372036854775807", "9223372036854775808", "99999999999999999999999", "-9223372036854775808",
        "9223372036854775807GiB", "8589934592GiB", "9007199254740993KiB", "9223372036854775807ms",
        "9223372036854775807s", "153722867280912931m", "2562047788015216h", "9223372036854775807h",
        "1000000000h", "4000000000", "2147483648KiB",
    ]

    @Test(arguments: numericKeys, hugeValues)
    func aHugeValueLoadsOrStopsTheStartNamingTheKey(key: String, value: String) {
        let variable = ConfigurationValue.environmentName(of: key)
        let environment = Self.minimal.merging([variable: value]) { $1 }
        do {
            let configuration = try ConfigurationLoader.load(json: nil, environment: environment)
            // Accepted: what the worker derives from the configuration must not trap either.
            var random = JitterRandom(seed: 1)
            for attempt in [1, 30, Int.max - 1] {
                _ = configuration.engine.retry.delay(afterAttempt: attempt, retryAfter: nil, using: &random)
            }
            _ = CloudEventEncoder(workerId: "w", maxBytes: configuration.events.maxBytes)
            let record = #"{"receiver": {"id": "u", "type": "user"}, "files": [{"fileId": "f", "source": {"data": "aGk="}}]}"#
            _ = JobDecoder(limits: configuration.limits).decode(Data(record.utf8), from: .init(topic: "t", partition: 0, offset: 0, key: "b"))
            _ = try HTTPClient(configuration: .init(maxConcurrentTransfers: configuration.worker.maxTransfers))
        } catch let error as ConfigurationError {
            #expect(error.key == key || error.key == variable, "\(key)=\(value): \(error)")
        } catch {
            Issue.record("\(key)=\(value): \(error)")
        }
    }

    @Test(arguments: numericKeys)
    func theFileFormOfAnOverflowingValueNamesTheKey(key: String) {
        let parts = key.split(separator: ".")
        let json = #"{"\#(parts[0])": {"\#(parts[1])": "9223372036854775807GiB"}}"#
        #expect {
            try ConfigurationLoader.load(json: Data(json.utf8), environment: Self.minimal)
        } throws: { error in
            (error as? ConfigurationError)?.key == key
        }
    }

    @Test func theInlineLimitAtInt64MaxIsRefusedNamingTheKey() {
        let environment = Self.minimal.merging(["ATTACHE_LIMITS_INLINE_MAX": "9223372036854775807"]) { $1 }
        #expect(throws: ConfigurationError(key: "limits.inlineMax", "must be 1B to 256MiB")) {
            try ConfigurationLoader.load(json: nil, environment: environment)
        }
    }

    @Test func theBoundsKeysHaveTheirDocumentedDefaultsAndCanBeSet() throws {
        let defaults = try ConfigurationLoader.load(json: nil, environment: Self.minimal)
        #expect(defaults.limits.filesPerJob == 100)
        #expect(defaults.limits.messageOptionsMax == 16 * 1024)
        #expect(defaults.events.maxBytes == 900 * 1024)
        let json = #"{"limits": {"filesPerJob": 20, "messageOptionsMax": "4KiB"}, "events": {"maxBytes": "512KiB"}}"#
        let set = try ConfigurationLoader.load(json: Data(json.utf8), environment: Self.minimal)
        #expect(set.limits.filesPerJob == 20)
        #expect(set.limits.messageOptionsMax == 4096)
        #expect(set.events.maxBytes == 512 * 1024)
    }

    @Test(arguments: [("9223372036854775807GiB", nil), ("8GiB", Int64(8) << 30), ("0B", 0), ("-1KiB", nil)] as [(String, Int64?)])
    func sizesAreParsedWithOverflowChecks(text: String, bytes: Int64?) {
        #expect(ConfigurationValue.size(text) == bytes)
    }

    @Test(arguments: [("9223372036854775807h", nil), ("2562047788015h", Duration.milliseconds(Int64(2_562_047_788_015) * 3_600_000)), ("2562047788016h", nil),
                      ("250ms", .milliseconds(250)), ("-1s", nil)] as [(String, Duration?)])
    func durationsAreParsedWithOverflowChecks(text: String, duration: Duration?) {
        #expect(ConfigurationValue.duration(text) == duration)
    }
}
