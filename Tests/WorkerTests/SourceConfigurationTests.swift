import Foundation
@testable import Staging
import Testing
@testable import Worker


/// The source keys: `sources.stripLocation` is read, `sources.allowHosts` entries are checked before start, and the
/// deadlines that keep sources and presign calls from pending forever, and the cap on open `path` sources, are read,
/// checked and handed to the parts.
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

    @Test func theDeadlinesHaveTheirDocumentedDefaultsAndAreReadFromTheFileAndTheEnvironment() throws {
        let defaults = try ConfigurationLoader.load(json: Data("{\(Self.base)}".utf8), environment: [:])
        let file = try ConfigurationLoader.load(
            json: Data("{\(Self.base), \"sources\": {\"minSpeed\": \"4KiB\", \"fetchTimeout\": \"2m\"}, \"presign.timeout\": \"5s\"}".utf8),
            environment: [:])
        let environment = try ConfigurationLoader.load(
            json: Data("{\(Self.base)}".utf8),
            environment: ["ATTACHE_SOURCES_MIN_SPEED": "512", "ATTACHE_SOURCES_FETCH_TIMEOUT": "90s", "ATTACHE_PRESIGN_TIMEOUT": "250ms"])

        #expect(defaults.sources.minSpeed == 1024)
        #expect(defaults.sources.fetchTimeout == .seconds(600))
        #expect(defaults.presign.timeout == .seconds(30))
        #expect(file.sources.minSpeed == 4096)
        #expect(file.sources.fetchTimeout == .seconds(120))
        #expect(file.presign.timeout == .seconds(5))
        #expect(environment.sources.minSpeed == 512)
        #expect(environment.sources.fetchTimeout == .seconds(90))
        #expect(environment.presign.timeout == .milliseconds(250))
    }

    @Test(arguments: [
        ("ATTACHE_SOURCES_MIN_SPEED", "0", "sources.minSpeed", "must be at least 1"),
        ("ATTACHE_SOURCES_MIN_SPEED", "fast", "ATTACHE_SOURCES_MIN_SPEED", "expected a size"),
        ("ATTACHE_SOURCES_FETCH_TIMEOUT", "0s", "sources.fetchTimeout", "must be positive"),
        ("ATTACHE_PRESIGN_TIMEOUT", "0ms", "presign.timeout", "must be positive"),
        ("ATTACHE_PRESIGN_TIMEOUT", "soon", "ATTACHE_PRESIGN_TIMEOUT", "expected a duration"),
    ])
    func aDeadlineThatCouldNeverEndOrDoesNotParseStopsTheStart(variable: String, value: String, key: String, problem: String) {
        #expect {
            try ConfigurationLoader.load(json: Data("{\(Self.base)}".utf8), environment: [variable: value])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.key == key && error.problem.contains(problem)
        }
    }

    @Test func theWorkersStagerAndPresignerGetTheConfiguredDeadlines() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attache-components-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = try ConfigurationLoader.load(json: Data("{\(Self.base)}".utf8), environment: [:])
        configuration.sources.minSpeed = 2048
        configuration.sources.fetchTimeout = .seconds(42)
        configuration.presign.timeout = .milliseconds(1500)
        let area = try StagingArea(directory: directory.path)
        let cache = try await SourceCache.reconciled(in: area, maximumBytes: 0)

        let components = try WorkerComponents(configuration: configuration, metrics: WorkerMetrics(), area: area, cache: cache)

        #expect(components.stager.settings.minimumSpeed == 2048)
        #expect(components.stager.settings.fetchTimeout == .seconds(42))
        let presigner = try #require(components.presigner as? PresignEndpointClient)
        #expect(presigner.timeout == .milliseconds(1500))
    }
    @Test func maxOpenSourcesHasItsDocumentedDefaultIsReadFromTheEnvironmentAndHasARange() throws {
        let defaults = try ConfigurationLoader.load(json: Data("{\(Self.base)}".utf8), environment: [:])
        let set = try ConfigurationLoader.load(
            json: Data("{\(Self.base)}".utf8), environment: ["ATTACHE_STAGING_MAX_OPEN_SOURCES": "16"])
        let file = try ConfigurationLoader.load(json: Data("{\(Self.base), \"staging\": {\"maxOpenSources\": 0}}".utf8), environment: [:])

        #expect(defaults.staging.maxOpenSources == 4096)
        #expect(set.staging.maxOpenSources == 16)
        #expect(file.staging.maxOpenSources == 0)
        for value in ["-1", "1000001"] {
            #expect(throws: ConfigurationError(key: "staging.maxOpenSources", "must be 0 to 1000000")) {
                try ConfigurationLoader.load(json: Data("{\(Self.base)}".utf8), environment: ["ATTACHE_STAGING_MAX_OPEN_SOURCES": value])
            }
        }
    }

    @Test(arguments: [AttacheConfiguration.PresignMode.endpoint, .s3])
    func theWorkersStagerHashesPathSourcesBeforeTheirUploadOnlyWhenTheDigestIsSigned(mode: AttacheConfiguration.PresignMode) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attache-components-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = try ConfigurationLoader.load(json: Data("{\(Self.base)}".utf8), environment: [:])
        configuration.staging.maxOpenSources = 12
        configuration.presign.mode = mode
        configuration.presign.s3.bucket = "uploads"
        configuration.presign.s3.region = "eu-west-1"
        configuration.presign.s3.accessKeyId = "AKIDEXAMPLE"
        configuration.presign.s3.secretAccessKey = "secret"
        let area = try StagingArea(directory: directory.path)
        let cache = try await SourceCache.reconciled(in: area, maximumBytes: 0)

        let components = try WorkerComponents(configuration: configuration, metrics: WorkerMetrics(), area: area, cache: cache)

        #expect(components.stager.settings.maxOpenSources == 12)
        #expect(components.stager.settings.signsDigest == (mode == .s3))
    }
}
