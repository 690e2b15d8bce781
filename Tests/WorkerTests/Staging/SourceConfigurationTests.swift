import Foundation
import Testing
@testable import Worker

/// The source keys: `sources.stripLocation` is read, and `sources.allowHosts` entries are checked before start.
@Suite struct SourceConfigurationTests {
    private static let base = #""presign": {"url": "http://p/presign"}, "kafka": {"brokers": "k:9092"}, "messages": {"mode": "none"}"#

    @Test func stripLocationIsReadFromTheFileAndTheEnvironment() throws {
        let file = try ConfigurationLoader.load(json: Data("{\(Self.base), \"sources\": {\"stripLocation\": true}}".utf8), environment: [:])
        let environment = try ConfigurationLoader.load(
            json: Data("{\(Self.base)}".utf8), environment: ["ATTACHE_SOURCES_STRIP_LOCATION": "true"])

        #expect(AttacheConfiguration().sources.stripLocation == false)
        #expect(file.sources.stripLocation)
        #expect(environment.sources.stripLocation)
    }

    @Test func allowHostsEntriesThatAreNeitherNamesNorAddressesFailValidation() throws {
        let good = try ConfigurationLoader.load(
            json: Data("{\(Self.base), \"sources\": {\"allowHosts\": [\"files.internal\", \"10.0.0.0/8\", \"fd00::/8\", \"127.0.0.1\"]}}".utf8),
            environment: [:])
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(
                json: Data("{\(Self.base), \"sources\": {\"allowHosts\": [\"*.internal\"]}}".utf8), environment: [:])
        }

        #expect(good.sources.allowHosts.count == 4)
        #expect(error?.key == "sources.allowHosts")
        #expect(error?.problem.contains("*.internal") == true)
    }
}
