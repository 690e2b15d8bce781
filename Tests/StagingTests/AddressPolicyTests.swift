import HTTPTransport
import Testing

/// Which connected addresses `AddressPolicy` refuses, and how allow-list entries are read.
@Suite struct AddressPolicyTests {
    static let refused: [String] = [
        "127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1",
        "100.100.100.200", "169.254.169.254", "169.254.0.1", "0.0.0.0", "0.1.2.3", "224.0.0.1", "239.255.255.250",
        "255.255.255.255", "240.0.0.1", "192.0.0.192", "192.0.2.10", "198.18.0.1", "168.63.129.16",
        "::", "::1", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "fec0::1", "2001:db8::1",
        "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1",
        "::127.0.0.1", "::ffff:0:7f00:1",
    ]

    static let allowed: [String] = [
        "93.184.216.34", "8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "192.169.0.1", "2606:4700::1111",
        "2a00:1450:4001::1", "::ffff:8.8.8.8", "64:ff9b::808:808",
    ]

    @Test(arguments: refused)
    func aSpecialAddressIsRefusedUnlessAllowListed(_ text: String) throws {
        let address = try #require(AddressPolicy.IPAddress(text))

        #expect(AddressPolicy.publicOnly.refusal(of: address, host: nil) != nil)
        #expect(try AddressPolicy(allowHosts: [text]).refusal(of: address, host: nil) == nil)
    }

    @Test(arguments: allowed)
    func aPublicAddressIsAllowed(_ text: String) throws {
        let address = try #require(AddressPolicy.IPAddress(text))

        #expect(AddressPolicy.publicOnly.refusal(of: address, host: nil) == nil)
    }

    @Test func aRefusalNamesTheAddressAndWhatItIs() throws {
        let refusal = AddressPolicy.publicOnly.refusal(of: try #require(AddressPolicy.IPAddress("::ffff:169.254.169.254")), host: nil)

        #expect(refusal == "::ffff:169.254.169.254 is a link-local (cloud metadata) address inside an IPv6 address and not in sources.allowHosts")
    }

    @Test func cidrEntriesAllowTheirWholeRangeAndNothingElse() throws {
        let policy = try AddressPolicy(allowHosts: ["10.20.0.0/16", "fd12:3456::/32"])

        #expect(policy.refusal(of: try #require(.init("10.20.255.1")), host: nil) == nil)
        #expect(policy.refusal(of: try #require(.init("10.21.0.1")), host: nil) != nil)
        #expect(policy.refusal(of: try #require(.init("fd12:3456:ffff::1")), host: nil) == nil)
        #expect(policy.refusal(of: try #require(.init("fd12:3457::1")), host: nil) != nil)
    }

    @Test func anIPv4EntryAlsoAllowsItsIPv4MappedForm() throws {
        let policy = try AddressPolicy(allowHosts: ["127.0.0.1"])

        #expect(policy.refusal(of: try #require(.init("::ffff:127.0.0.1")), host: nil) == nil)
        #expect(policy.refusal(of: try #require(.init("127.0.0.2")), host: nil) != nil)
    }

    @Test func aHostNameEntryMatchesTheURLHostExactlyWhateverCase() throws {
        let policy = try AddressPolicy(allowHosts: ["Files.Internal.Example."])
        let loopback = try #require(AddressPolicy.IPAddress("127.0.0.1"))

        #expect(policy.refusal(of: loopback, host: "files.internal.example") == nil)
        #expect(policy.refusal(of: loopback, host: "FILES.internal.example.") == nil)
        #expect(policy.refusal(of: loopback, host: "evil.files.internal.example") != nil)
        #expect(policy.refusal(of: loopback, host: "127.0.0.1") != nil)
    }

    @Test(arguments: ["*.example.com", "0177.0.0.1", "2130706433", "0x7f.1", "10.0.0.0/33", "::1/129", "", "host name", "http://x"])
    func aMalformedEntryIsRejected(_ entry: String) {
        #expect(throws: HTTPTransportError.self) { try AddressPolicy(allowHosts: [entry]) }
    }

    @Test func theDisguisedIPv4FormsAreNotAddressesToTheParser() {
        for text in ["2130706433", "0177.0.0.1", "0x7f.0.0.1", "127.1", "127.000.000.001"] {
            #expect(AddressPolicy.IPAddress(text) == nil, "\(text)")
        }
    }
}
