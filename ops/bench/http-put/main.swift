// Uploads files to an HTTP PUT endpoint through CurlUploader (the worker's upload path) and prints one JSON line:
// {"files","bytes","seconds","mibPerSecond","peakRSSKiB"}. Used by ops/bench/http-put.sh.
//
//   http-put-bench --base http://127.0.0.1:PORT/dav/run1 --concurrency 8 FILE...
import Foundation
import HTTPTransport
import UploadEngine

struct Options {
    var base = ""
    var concurrency = 8
    var files: [String] = []

    init(_ arguments: [String]) throws {
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--base": base = rest.popFirst() ?? ""
            case "--concurrency": concurrency = Int(rest.popFirst() ?? "") ?? 0
            default: files.append(argument)
            }
        }
        guard !base.isEmpty, concurrency > 0, !files.isEmpty else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "usage: --base URL --concurrency N FILE..."])
        }
    }
}

/// The process's peak resident set size (VmHWM), in KiB.
func peakResidentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

let options = try Options(CommandLine.arguments)
let client = try HTTPClient(configuration: .init(maxConcurrentTransfers: options.concurrency))
let uploader = CurlUploader(client: client)
var bytes: Int64 = 0
var transfers: [UploadTransfer] = []
for path in options.files {
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    bytes += size
    let name = URL(fileURLWithPath: path).lastPathComponent
    transfers.append(
        UploadTransfer(
            target: UploadTarget(uploadURL: "\(options.base)/\(name)", fileURL: "\(options.base)/\(name)"),
            staged: StagedFile(path: path, size: size, sha256: ""), mimeType: "application/octet-stream"))
}

let clock = ContinuousClock()
let started = clock.now
try await withThrowingTaskGroup(of: Void.self) { group in
    for transfer in transfers {
        group.addTask { try await uploader.upload(transfer) { _, _ in } }
    }
    try await group.waitForAll()
}
let elapsed = clock.now - started
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let mib = Double(bytes) / 1_048_576
print(
    #"{"files":\#(transfers.count),"bytes":\#(bytes),"seconds":\#(String(format: "%.3f", seconds)),"#
        + #""mibPerSecond":\#(String(format: "%.1f", mib / seconds)),"peakRSSKiB":\#(peakResidentKiB())}"#)
