import Testing
@testable import KafkaIO

@Suite struct GroupGenerationTests {
    @Test(arguments: [Int32(0x0102_0304), -1, 1, Int32.max])
    func theGenerationIsReadBackFromMetadataTheLinkedLibrarySerialised(generation: Int32) {
        #expect(GroupGeneration.roundTrip(groupID: "attache", generation: generation, memberID: "member-1",
                                          instanceID: nil) == generation)
        #expect(GroupGeneration.roundTrip(groupID: "attache", generation: generation, memberID: "m",
                                          instanceID: "instance-7") == generation)
    }

    @Test func metadataOfAnotherLayoutOrGroupYieldsNoGeneration() {
        let valid = Array("CGMDv2:".utf8) + [7, 0, 0, 0] + Array("jobs".utf8) + [0] + Array("m".utf8) + [0, 1]
        valid.withUnsafeBytes { #expect(GroupGeneration.parse($0, groupID: "jobs") == 7) }
        valid.withUnsafeBytes { #expect(GroupGeneration.parse($0, groupID: "other") == nil) }
        var otherMagic = valid
        otherMagic[5] = UInt8(ascii: "3")
        otherMagic.withUnsafeBytes { #expect(GroupGeneration.parse($0, groupID: "jobs") == nil) }
        Array(valid.prefix(12)).withUnsafeBytes { #expect(GroupGeneration.parse($0, groupID: "jobs") == nil) }
    }
}
