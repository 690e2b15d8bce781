import Foundation
import Testing
@testable import Worker

/// The dashboard's keys (`dashboard.*`, DESIGN §7): read from the file and the environment, checked before the start.
@Suite struct DashboardConfigurationTests {
    private static let minimal = ["ATTACHE_KAFKA_BROKERS": "127.0.0.1:9092"]

    private func dashboard(_ environment: [String: String], json: String? = nil) throws -> AttacheConfiguration.Dashboard {
        let resolved = try ConfigurationLoader.resolve(json: json.map { Data($0.utf8) }, environment: Self.minimal.merging(environment) { $1 })
        try resolved.configuration.validateDashboard()
        return resolved.configuration.dashboard
    }

    @Test func theKeysHaveTheirDocumentedDefaults() throws {
        let dashboard = try dashboard([:])
        #expect(dashboard.allowedHosts.isEmpty && dashboard.token.isEmpty && dashboard.maxClients == 64)
    }

    @Test func theKeysAreReadFromTheFileAndTheEnvironment() throws {
        let fromFile = try dashboard([:], json: #"{"dashboard": {"allowedHosts": ["dash.example.com", "proxy:8443"], "token": "t0k", "maxClients": 8}}"#)
        #expect(fromFile.allowedHosts == ["dash.example.com", "proxy:8443"] && fromFile.token == "t0k" && fromFile.maxClients == 8)
        let fromEnvironment = try dashboard(["ATTACHE_DASHBOARD_ALLOWED_HOSTS": "a.example, [::1]:9470", "ATTACHE_DASHBOARD_TOKEN": "env-tok",
                                             "ATTACHE_DASHBOARD_MAX_CLIENTS": "1024"])
        #expect(fromEnvironment.allowedHosts == ["a.example", "[::1]:9470"] && fromEnvironment.token == "env-tok")
        #expect(fromEnvironment.maxClients == 1024)
    }

    @Test(arguments: [
        ("ATTACHE_DASHBOARD_MAX_CLIENTS", "0", "dashboard.maxClients"),
        ("ATTACHE_DASHBOARD_MAX_CLIENTS", "1025", "dashboard.maxClients"),
        ("ATTACHE_DASHBOARD_ALLOWED_HOSTS", "https://dash.example.com", "dashboard.allowedHosts"),
        ("ATTACHE_DASHBOARD_ALLOWED_HOSTS", "ok.example,*.example.com", "dashboard.allowedHosts"),
        ("ATTACHE_DASHBOARD_ALLOWED_HOSTS", "dash.example.com/path", "dashboard.allowedHosts"),
        ("ATTACHE_DASHBOARD_TOKEN", "two words", "dashboard.token"),
        ("ATTACHE_DASHBOARD_TOKEN", "tøken", "dashboard.token"),
        ("ATTACHE_DASHBOARD_TOKEN", String(repeating: "t", count: 1025), "dashboard.token"),
    ])
    func aBadValueStopsTheStartNamingTheKey(variable: String, value: String, key: String) {
        #expect {
            _ = try dashboard([variable: value])
        } throws: { error in
            (error as? ConfigurationError)?.key == key
        }
    }
}
