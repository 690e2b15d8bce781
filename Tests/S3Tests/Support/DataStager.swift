import Foundation
@testable import S3
import UploadEngine


/// A `SourceStager` for inline data only: writes the bytes to a scratch directory and removes them on release.
struct DataStager: SourceStager {
    let directory: URL

    func stage(_ file: FileItem, batchId: String, sizeLimit: Int64) async throws -> StagedFile {
        guard case .data(let bytes) = file.source else {
            throw UploadError(.invalidFileObject, "only inline data is staged here", retryable: false)
        }
        let path = directory.appendingPathComponent("staged-\(UUID().uuidString)").path
        try bytes.write(to: URL(fileURLWithPath: path))
        return StagedFile(path: path, size: Int64(bytes.count), sha256: SHA256Hasher.hex(of: bytes), mimeType: file.mimeType)
    }

    func release(_ staged: StagedFile) async {
        if let path = staged.path { try? FileManager.default.removeItem(atPath: path) }
    }
}
