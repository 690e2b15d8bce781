import Foundation
import UploadEngine

/// The demo's batch: files that look like what they claim to be (real magic numbers), in sizes that make progress
/// visible.
enum DemoFiles {
    struct File {
        let item: FileItem
        /// Bytes written under the source root for `path` sources.
        let onDisk: Data?
    }

    static func bytes(magic: [UInt8], size: Int, seed: UInt8) -> Data {
        var data = Data(magic)
        data.append(Data((0..<(size - magic.count)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }))
        return data
    }

    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00]
    static let mp4: [UInt8] = [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6D, 0x70, 0x34, 0x32]
    static let mp3: [UInt8] = [0x49, 0x44, 0x33, 0x04, 0x00, 0x00]
    static let pdf: [UInt8] = Array("%PDF-1.7\n".utf8)

    /// The batch, in input order, and the size limit that makes one of them too large.
    static func batch(sizeLimit: Int64) -> [File] {
        let photo1 = bytes(magic: jpeg, size: 200 * 1024, seed: 1)
        let photo2 = bytes(magic: jpeg, size: 300 * 1024, seed: 2)
        return [
            File(item: FileItem(fileId: "photo-1", name: "beach.jpg", mimeType: "image/jpeg", source: .data(photo1)), onDisk: nil),
            File(item: FileItem(fileId: "photo-2", name: "sunset.JPG", mimeType: "image/jpeg", source: .data(photo2)), onDisk: nil),
            File(item: FileItem(fileId: "clip", name: "surfing.mp4", mimeType: "video/mp4", source: .path("trip/surfing.mp4")),
                 onDisk: bytes(magic: mp4, size: 6 * 1024 * 1024, seed: 3)),
            File(item: FileItem(fileId: "voice", name: "voice-note.mp3", mimeType: "audio/mpeg", source: .path("trip/voice-note.mp3")),
                 onDisk: bytes(magic: mp3, size: 1536 * 1024, seed: 4)),
            File(item: FileItem(fileId: "itinerary", name: "itinerary.pdf", mimeType: "application/pdf", source: .path("trip/itinerary.pdf")),
                 onDisk: bytes(magic: pdf, size: 300 * 1024, seed: 5)),
            File(item: FileItem(fileId: "raw-footage", name: "raw-footage.mov", mimeType: "video/quicktime",
                                declaredSize: sizeLimit + 1, source: .path("trip/raw-footage.mov")), onDisk: nil),
        ]
    }
}
