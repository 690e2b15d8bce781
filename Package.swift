// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Attache",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "attache", targets: ["attache"]),
        .library(name: "UploadEngine", targets: ["UploadEngine"]),
    ],
    targets: [
        // C libraries from Debian, each behind a module map and a shim header.
        .systemLibrary(name: "CRdKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Linux calls Swift cannot reach through Glibc — openat2, which glibc does not wrap, pthread_setname_np, a GNU
        // extension, and the futex calls of ShortLock's lock word — behind typed inline functions. Headers only.
        .systemLibrary(name: "CLinux"),

        // Wire-format values every layer speaks: JSON (value, parser, writer, field reader), HTTP header fields, name-based
        // UUIDs, RFC 3339 times.
        .target(name: "WireFormat"),
        // The one first-in-first-out queue, shared by the engine and the Kafka clients, which may not import each other.
        .target(name: "FIFOQueueModule"),
        // The lock for state several threads take for a moment each, many times a job (the changelog writer's table): a
        // short spin, then a plain futex.
        .target(name: "ShortLockModule", dependencies: ["CLinux"]),
        .target(name: "UploadEngine", dependencies: ["WireFormat", "FIFOQueueModule"]),
        // libcurl transfers, the one table of retryable statuses, the address policy and download guard. Nothing of the engine.
        .target(name: "HTTPTransport", dependencies: ["WireFormat", "CCurl", "CLinux"]),
        // Storage on top of the transport: SigV4 signing and SHA-256, the S3 presigner, multipart uploads, S3Storage, the
        // presigned-URL uploader (the engine's `Uploader`) and the `<Error>` answers every S3-compatible store gives.
        .target(name: "S3", dependencies: ["HTTPTransport", "UploadEngine", "WireFormat", "CCrypto"]),
        .target(name: "KafkaIO", dependencies: ["FIFOQueueModule", "CRdKafka", "CLinux"]),
        // The local SQLite copy of the batch-state changelog (DESIGN.md §4.1).
        .target(name: "BatchStore", dependencies: ["CSQLite"]),
        // The libmicrohttpd server wrapper shared by the dev services and the worker's admin endpoints.
        .target(name: "EmbeddedHTTP", dependencies: ["WireFormat", "CMicroHTTPD"]),
        .target(name: "DevServices", dependencies: ["WireFormat", "EmbeddedHTTP", "S3"]),
        // The records Attache reads and writes on Kafka: jobs and controls decoded within their bounds, CloudEvents encoded,
        // dead-letter headers. Shared by the worker, the dashboard and the operator commands.
        .target(name: "Records", dependencies: ["WireFormat", "UploadEngine", "KafkaIO"]),
        // Sources and staging (DESIGN.md §5): URL, path and inline sources, the source cache, sniffing, location stripping.
        .target(name: "Staging", dependencies: ["WireFormat", "UploadEngine", "HTTPTransport", "S3", "CLinux"]),
        .target(name: "Worker", dependencies: ["WireFormat", "UploadEngine", "HTTPTransport", "S3", "KafkaIO", "EmbeddedHTTP", "BatchStore",
                                               "Records", "Staging", "FIFOQueueModule", "ShortLockModule"]),
        // What the command line builds and presents, kept out of the executable so it can be unit-tested: job and
        // control records, the changelog read back into batches, dead letters, event watching.
        .target(name: "OperatorTools", dependencies: ["Records", "KafkaIO", "UploadEngine", "WireFormat"]),
        // The live dashboard: its model of the topics, the event stream to browsers and the page embedded as Swift strings.
        .target(name: "Dashboard", dependencies: ["Records", "KafkaIO", "EmbeddedHTTP", "UploadEngine", "WireFormat", "FIFOQueueModule"]),
        .executableTarget(name: "attache", dependencies: ["Worker", "DevServices", "KafkaIO", "UploadEngine", "WireFormat", "OperatorTools", "S3", "HTTPTransport",
                                                          "Dashboard", "EmbeddedHTTP"]),

        // What every test target shares: doubles for the engine's collaborators, the manual clock, `eventually`, loopback
        // helpers (the curl CLI, free ports, held sockets), nginx as a test server, temporary files. Never in a product.
        .target(name: "TestSupport", dependencies: ["UploadEngine", "EmbeddedHTTP", "CProcessSpawn"], path: "Tests/TestSupport"),
        // glibc's posix_spawn file actions that spawn.h hides behind _GNU_SOURCE, for the tests' child processes.
        .systemLibrary(name: "CProcessSpawn", path: "Tests/CProcessSpawn"),
        // Runs a record through the decoder and the engine and measures every event and snapshot it leads to: shared
        // by a unit test (the worst case) and a fuzz target (`FuzzEventBounds`). Never in a product.
        .target(name: "BoundsProbe", dependencies: ["Worker", "UploadEngine", "KafkaIO", "Records"], path: "Tests/BoundsProbe"),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        .testTarget(name: "WireFormatTests", dependencies: ["WireFormat"]),
        .testTarget(name: "FIFOQueueTests", dependencies: ["FIFOQueueModule"]),
        .testTarget(name: "ShortLockTests", dependencies: ["ShortLockModule"]),
        .testTarget(name: "UploadEngineTests", dependencies: ["UploadEngine", "WireFormat", "TestSupport"]),
        .testTarget(name: "HTTPTransportTests", dependencies: ["HTTPTransport", "UploadEngine", "WireFormat", "TestSupport"]),
        .testTarget(name: "S3Tests", dependencies: ["S3", "HTTPTransport", "UploadEngine", "WireFormat", "TestSupport"]),
        .testTarget(name: "KafkaIOTests", dependencies: ["KafkaIO", "TestSupport"]),
        .testTarget(name: "BatchStoreTests", dependencies: ["BatchStore", "TestSupport"]),
        .testTarget(name: "EmbeddedHTTPTests", dependencies: ["EmbeddedHTTP", "TestSupport"]),
        .testTarget(name: "DevServicesTests", dependencies: ["DevServices", "TestSupport", "WireFormat"]),
        // Runs the real `attache` binary against `attache dev-broker`, driven by kcat.
        .testTarget(name: "EndToEndTests", dependencies: ["DevServices", "EmbeddedHTTP", "HTTPTransport", "KafkaIO", "S3", "TestSupport", "WireFormat"],
                    exclude: ["Support/mock_kafka.py"]),
        .testTarget(name: "TransferIntegrationTests", dependencies: ["WireFormat", "UploadEngine", "TestSupport", "HTTPTransport", "S3", "DevServices", "EmbeddedHTTP", "Worker", "Staging"]),
        .testTarget(name: "OperatorToolsTests", dependencies: ["OperatorTools", "KafkaIO", "UploadEngine", "WireFormat", "TestSupport", "Records"]),
        .testTarget(name: "DashboardTests", dependencies: ["Dashboard", "OperatorTools", "EmbeddedHTTP", "UploadEngine", "WireFormat", "TestSupport", "Records"]),
        .testTarget(name: "RecordsTests", dependencies: ["Records", "KafkaIO", "UploadEngine", "WireFormat", "TestSupport", "BoundsProbe"]),
        .testTarget(name: "StagingTests", dependencies: ["Staging", "HTTPTransport", "S3", "EmbeddedHTTP", "UploadEngine", "WireFormat", "TestSupport", "CLinux"]),
        .testTarget(name: "PackageShapeTests"),
        .testTarget(name: "WorkerTests", dependencies: ["Worker", "CLinux", "BatchStore", "DevServices", "KafkaIO", "HTTPTransport", "S3", "UploadEngine", "WireFormat", "TestSupport", "BoundsProbe", "Records", "Staging"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets, one per parser of untrusted input and one for the encoders that input reaches (`ops/fuzz`). They
// only link with libFuzzer's runtime (`-sanitize=fuzzer`), so they are declared only when ATTACHE_FUZZ=1 and never join
// the normal build.
if Context.environment["ATTACHE_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzJSONParser", ["WireFormat"]),
        ("FuzzJobDecoder", ["Records", "UploadEngine", "WireFormat"]),
        ("FuzzLocationMetadata", ["Staging"]),
        ("FuzzContentSignature", ["Staging"]),
        ("FuzzPresignAnswer", ["Worker", "WireFormat"]),
        ("FuzzS3Error", ["S3"]),
        ("FuzzConfiguration", ["Worker"]),
        ("FuzzBatchSnapshot", ["UploadEngine"]),
        ("FuzzEventBounds", ["BoundsProbe", "Records", "Worker", "UploadEngine", "KafkaIO", "WireFormat"]),
    ]
    package.targets += [
        .systemLibrary(name: "LibFuzzerDriver", path: "Fuzz/LibFuzzerDriver"),
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"),
    ]
    for target in fuzzTargets {
        package.targets.append(.executableTarget(
            name: target.name, dependencies: target.dependencies + ["LibFuzzerDriver", "FuzzSupport"], path: "Fuzz/Targets/\(target.name)"))
    }
}
