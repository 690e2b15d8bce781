import BoundsProbe
import Foundation
import WireFormat

/// A job record, and how the collaborators answer its files, made from the fuzzer's bytes.
enum FuzzedJob {
    static let traceHead = "4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    static func make(from input: inout FuzzInput) -> JobSpec {
        var spec = JobSpec()
        spec.batchId = input.flag() ? input.text(limit: 128) : nil
        spec.requestId = input.flag() ? input.text(limit: 128) : nil
        spec.receiverId = input.text(limit: 128)
        spec.sender = input.flag() ? input.text(limit: 128) : nil
        spec.parentMessageId = input.flag() ? input.text(limit: 128) : nil
        spec.concurrency = input.flag() ? 1 + Int(input.next()) * 4 : nil
        spec.key = switch input.next() % 4 {
        case 0: spec.batchId
        case 1: nil
        case 2: input.text(limit: 128)
        default: String(repeating: "k", count: 64 * 1024)
        }
        spec.files = (0..<min(Int(input.next()), 101)).map { _ in file(from: &input) }
        spec.send = ["auto", "manual", "none"][Int(input.next() % 3)]
        spec.caption = input.flag() ? input.text(limit: 8 * 1024) : nil
        if input.flag() { spec.metadata = ["note": .string(input.text(limit: 8 * 1024))] }
        spec.tags = (0..<Int(input.next() % 4)).map { _ in input.text(limit: 64) }
        spec.traceparent = switch input.next() % 4 {
        case 0: nil
        case 1: "00-" + traceHead
        case 2: "\(["01", "cc", "fe"][Int(input.next() % 3)])-\(traceHead)-" + input.text(limit: 256 - 56)
        default: input.text(limit: 64)
        }
        spec.tracestate = input.flag() ? input.text(limit: 512) : nil
        return spec
    }

    private static func file(from input: inout FuzzInput) -> JobSpec.File {
        let source: JobSpec.File.Source = switch input.next() % 3 {
        case 0: .url(input.text(limit: 8 * 1024, after: "https://files.example.com/"))
        case 1: .path(input.text(limit: 4 * 1024, after: "inbox/"))
        default: .data(Data(repeating: 7, count: Int(input.next() % 4)))
        }
        return JobSpec.File(fileId: input.text(limit: 128), name: input.flag() ? input.text(limit: 255) : nil,
                            mimeType: input.flag() ? input.text(limit: 255, after: "image/png; q=") : nil,
                            size: ([nil, 0, 1, -1, 1 << 40] as [Int64?])[Int(input.next() % 5)], source: source)
    }

    /// Which uploads, presign answers and posts fail, from one byte each.
    static func answers(from input: inout FuzzInput) -> EncodedSizeProbe.Answers {
        let (upload, presign, post) = (Int(input.next() % 5), Int(input.next() % 5), Int(input.next() % 3))
        var answers = EncodedSizeProbe.Answers()
        answers.uploadFails = { $0 % 5 < upload }
        answers.presignRefuses = { $0 % 5 < presign - 1 }
        answers.postFails = { $0 % 3 < post }
        return answers
    }
}
