import EmbeddedHTTP
import Foundation
import HTTPTransport
import Testing

/// `HTTPClient.download(addressPolicy:)` against a real loopback server: the address actually connected decides.
@Suite(.timeLimit(.minutes(1))) struct DownloadAddressCheckTests {
    private func download(_ url: String, policy: AddressPolicy, in fixture: StagingFixture) async throws -> HTTPResponse {
        let path = fixture.stagingDirectory + "/probe.part"
        defer { unlink(path) }
        return try await fixture.client.download(
            HTTPRequest(url: url, followRedirects: true), toFile: path, addressPolicy: policy)
    }

    private func refusal(_ url: String, policy: AddressPolicy, in fixture: StagingFixture) async -> HTTPTransportError? {
        do {
            _ = try await download(url, policy: policy, in: fixture)
            return nil
        } catch {
            return error as? HTTPTransportError
        }
    }

    @Test func aLoopbackSourceIsRefusedBeforeAnyRequestReachesIt() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.serve("/photo.jpg", SampleBytes.jpeg)

        let error = try #require(await refusal(fixture.url("/photo.jpg"), policy: .publicOnly, in: fixture))

        #expect(error.code == .addressRefused)
        #expect(error.message.contains("127.0.0.1 is a loopback address"))
        #expect(fixture.server.requests.isEmpty)
    }

    @Test func aHostNameThatResolvesToLoopbackIsRefusedOnTheAddressItConnectsTo() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.serve("/photo.jpg", SampleBytes.jpeg)

        let error = try #require(
            await refusal("http://rebound.localhost:\(fixture.server.port)/photo.jpg", policy: .publicOnly, in: fixture))

        #expect(error.code == .addressRefused)
        #expect(fixture.server.requests.isEmpty)
    }

    @Test func anAllowListedIPLetsItsConnectionsThrough() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.serve("/photo.jpg", SampleBytes.jpeg)

        let response = try await download(fixture.url("/photo.jpg"), policy: try AddressPolicy(allowHosts: ["127.0.0.0/8"]), in: fixture)

        #expect(response.status == 200)
        #expect(fixture.server.hits("/photo.jpg") == 1)
    }

    @Test func anAllowListedHostNameIsAllowedWhateverItResolvesToButOnlyUnderThatName() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.serve("/photo.jpg", SampleBytes.jpeg)
        fixture.server.redirect("/elsewhere", to: fixture.url("/photo.jpg"))
        let policy = try AddressPolicy(allowHosts: ["files.localhost"])
        let named = "http://files.localhost:\(fixture.server.port)"

        let response = try await download(named + "/photo.jpg", policy: policy, in: fixture)
        let direct = await refusal(fixture.url("/photo.jpg"), policy: policy, in: fixture)
        let redirected = await refusal(named + "/elsewhere", policy: policy, in: fixture)

        #expect(response.status == 200)
        #expect(direct?.code == .addressRefused)
        #expect(redirected?.code == .addressRefused, "the hop to 127.0.0.1 is checked under its own host")
        #expect(fixture.server.hits("/photo.jpg") == 1)
        #expect(fixture.server.hits("/elsewhere") == 1)
    }

    @Test func aRedirectToTheMetadataAddressIsRefusedBeforeConnecting() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.redirect("/hop", to: "http://169.254.169.254/latest/meta-data/")

        let error = try #require(
            await refusal(fixture.url("/hop"), policy: try AddressPolicy(allowHosts: ["127.0.0.1"]), in: fixture))

        #expect(error.code == .addressRefused)
        #expect(error.message.contains("169.254.169.254 is a link-local (cloud metadata) address"))
        #expect(fixture.server.hits("/hop") == 1)
    }

    @Test func aConnectionOpenedWithoutAPolicyIsNotReusedByAGuardedDownload() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.serve("/photo.jpg", SampleBytes.jpeg)
        let first = try await fixture.client.send(HTTPRequest(url: fixture.url("/photo.jpg")))

        let error = await refusal(fixture.url("/photo.jpg"), policy: .publicOnly, in: fixture)

        #expect(first.status == 200)
        #expect(error?.code == .addressRefused)
        #expect(fixture.server.hits("/photo.jpg") == 1)
    }

    @Test func aRedirectToAnotherSchemeIsRefused() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.redirect("/hop", to: "file:///etc/passwd")

        let error = await refusal(fixture.url("/hop"), policy: try AddressPolicy(allowHosts: ["127.0.0.1"]), in: fixture)

        #expect(error?.code == .redirectRefused)
    }

    @Test func aFourthRedirectIsNotFollowed() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        for hop in 0..<4 { fixture.server.redirect("/hop\(hop)", to: "/hop\(hop + 1)") }
        fixture.server.serve("/hop4", SampleBytes.jpeg)
        fixture.server.serve("/hop3-done", SampleBytes.jpeg)
        fixture.server.redirect("/three0", to: "/three1")
        fixture.server.redirect("/three1", to: "/three2")
        fixture.server.redirect("/three2", to: "/hop3-done")
        let policy = try AddressPolicy(allowHosts: ["127.0.0.1"])

        let tooMany = await refusal(fixture.url("/hop0"), policy: policy, in: fixture)
        let three = try await download(fixture.url("/three0"), policy: policy, in: fixture)

        #expect(tooMany?.code == .tooManyRedirects)
        #expect(fixture.server.hits("/hop4") == 0)
        #expect(three.status == 200)
    }
}
