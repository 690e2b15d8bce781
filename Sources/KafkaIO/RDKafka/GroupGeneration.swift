import CRdKafka

/// Reads the consumer group generation librdkafka holds for a consumer handle.
///
/// librdkafka 2.0.2 has no getter for it; `rd_kafka_consumer_group_metadata_write` serialises the group metadata
/// object, whose layout (rdkafka_cgrp.c, format "CGMDv2") is:
///
///     "CGMDv2:"            7 bytes, no terminator
///     generation_id        Int32, host byte order (a memcpy of the field)
///     group_id             NUL-terminated
///     member_id            NUL-terminated
///     instance_id_is_null  Int8
///     group_instance_id    NUL-terminated, only when the flag is 0
///
/// librdkafka calls the format private and build-specific, so the reader checks the magic and that the group id
/// follows the generation where expected; anything else yields `nil` rather than a wrong number.
enum GroupGeneration {
    private static let magic = Array("CGMDv2:".utf8)

    /// The generation of `client`'s group membership as librdkafka knows it now (`-1` before the first join); `nil`
    /// when the metadata cannot be read in the expected layout. Cheap: no I/O.
    static func current(of client: OpaquePointer, groupID: String) -> Int32? {
        guard let metadata = rd_kafka_consumer_group_metadata(client) else { return nil }
        defer { rd_kafka_consumer_group_metadata_destroy(metadata) }
        return generation(of: metadata, groupID: groupID)
    }

    /// Serialises a group metadata object and reads its generation back.
    static func generation(of metadata: OpaquePointer, groupID: String) -> Int32? {
        var buffer: UnsafeMutableRawPointer?
        var size = 0
        if let error = rd_kafka_consumer_group_metadata_write(metadata, &buffer, &size) {
            rd_kafka_error_destroy(error)
            return nil
        }
        guard let buffer else { return nil }
        defer { rd_kafka_mem_free(nil, buffer) }
        return parse(UnsafeRawBufferPointer(start: buffer, count: size), groupID: groupID)
    }

    /// The generation in serialised group metadata, if `bytes` has the CGMDv2 layout and names `groupID`.
    static func parse(_ bytes: UnsafeRawBufferPointer, groupID: String) -> Int32? {
        let group = Array(groupID.utf8) + [0]
        let generationEnd = magic.count + MemoryLayout<Int32>.size
        guard bytes.count >= generationEnd + group.count, bytes.prefix(magic.count).elementsEqual(magic),
              bytes[generationEnd..<(generationEnd + group.count)].elementsEqual(group) else { return nil }
        return bytes.loadUnaligned(fromByteOffset: magic.count, as: Int32.self)
    }

    /// Builds metadata with librdkafka's own constructor and reads the generation back: pins the layout above to
    /// the linked library without a broker.
    static func roundTrip(groupID: String, generation: Int32, memberID: String, instanceID: String?) -> Int32? {
        guard let metadata = rd_kafka_consumer_group_metadata_new_with_genid(groupID, generation, memberID, instanceID)
        else { return nil }
        defer { rd_kafka_consumer_group_metadata_destroy(metadata) }
        return self.generation(of: metadata, groupID: groupID)
    }
}
