import Foundation
import Testing

/// Modules depend downward (DESIGN.md §1), checked on `Package.swift` itself:
/// - only the executable `attache` depends on `Worker` — `Dashboard`, `OperatorTools` and the rest take what they
///   share from `Records`, `Staging` and `WireFormat`, never from the worker;
/// - `HTTPTransport` depends on nothing of the engine, not even through another module.
///
/// A "module" is a target of `Sources/`. Not modules, so free to depend on `Worker`:
/// - test targets (`WorkerTests` and `TransferIntegrationTests` do);
/// - targets with a `path:` under `Tests/`: `TestSupport` and `CProcessSpawn`, and `BoundsProbe`, which depends on
///   `Worker` to measure what the worker's encoders make of the largest records;
/// - the fuzz harnesses under `Fuzz/` (declared only when `ATTACHE_FUZZ=1`): `LibFuzzerDriver`, `FuzzSupport` and the
///   `Fuzz/Targets/…` executables, built in a loop whose names the reader cannot read (`FuzzPresignAnswer`,
///   `FuzzConfiguration` and `FuzzEventBounds` depend on `Worker`).
///
/// The manifest is read as text (`ManifestTargets`), not through `swift package dump-package`, which would wait on
/// the build lock that `swift test` holds.
@Suite struct PackageShapeTests {
    private let package: (root: URL, targets: ManifestTargets)

    init() throws { package = try ManifestTargets.enclosing(#filePath) }

    /// Each module other than `attache` that reaches `Worker`, as the chain of dependencies that does.
    static func dependentsOfWorker(in targets: ManifestTargets) -> [String] {
        targets.modules.compactMap { module in
            guard let name = module.name, name != "attache", name != "Worker" else { return nil }
            return targets.dependencyPath(from: name, to: "Worker")?.joined(separator: " → ")
        }
    }

    /// How `HTTPTransport` reaches `UploadEngine`, or `nil` when it does not.
    static func transportReachOfTheEngine(in targets: ManifestTargets) -> String? {
        targets.dependencyPath(from: "HTTPTransport", to: "UploadEngine")?.joined(separator: " → ")
    }

    @Test func everyFolderInSourcesIsAModuleTheReaderCanRead() throws {
        let sources = package.root.appendingPathComponent("Sources")
        let folders = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: sources.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
        // Without this the rules below could pass on a module the reader missed.
        #expect(Set(package.targets.modules.compactMap(\.name)) == Set(folders))
        let unreadable = package.targets.modules.filter { $0.name == nil || $0.dependencies == nil }
        #expect(unreadable.isEmpty, "modules whose name or dependencies Package.swift computes: \(unreadable)")
    }

    @Test func onlyTheExecutableDependsOnWorker() {
        let dependents = Self.dependentsOfWorker(in: package.targets)
        #expect(dependents.isEmpty, "only `attache` may depend on Worker; move what these need below it: \(dependents)")
    }

    @Test func httpTransportDependsOnNothingOfTheEngine() {
        #expect(package.targets.byName["HTTPTransport"] != nil)
        let reach = Self.transportReachOfTheEngine(in: package.targets)
        #expect(reach == nil, "HTTPTransport reaches the engine: \(reach ?? "")")
    }

    @Test func aModuleDependingOnWorkerIsCaughtDirectlyOrThroughAnother() {
        let manifest = ManifestTargets(parsing: """
            let package = Package(name: "Shape", targets: [
                .target(name: "Worker", dependencies: ["Records"]),
                .target(name: "Records"),
                .target(name: "Dashboard", dependencies: ["Records", .target(name: "Worker")]),
                .target(name: "Panels", dependencies: ["Dashboard"]),
                .executableTarget(name: "attache", dependencies: ["Worker", "Dashboard"]),
            ])
            """)
        #expect(Self.dependentsOfWorker(in: manifest) == ["Dashboard → Worker", "Panels → Dashboard → Worker"])
    }

    @Test func theTransportReachingTheEngineThroughAnotherModuleIsCaught() {
        let manifest = ManifestTargets(parsing: """
            let package = Package(name: "Shape", targets: [
                .target(name: "UploadEngine"),
                .target(name: "Uploads", dependencies: ["UploadEngine"]),
                .target(name: "HTTPTransport", dependencies: ["CCurl", "Uploads"]),
                .systemLibrary(name: "CCurl", pkgConfig: "libcurl"),
            ])
            """)
        #expect(Self.transportReachOfTheEngine(in: manifest) == "HTTPTransport → Uploads → UploadEngine")
    }

    @Test func commentsStringsAndTargetsBesideTheTestsAreNotModules() {
        let manifest = ManifestTargets(parsing: #"""
            let package = Package(name: "Shape", targets: [
                // .target(name: "Ghost", dependencies: ["Worker"]),
                /* .target(name: "Ghost", /* nested */ dependencies: ["Worker"]), */
                .target(name: "Worker", dependencies: ["WireFormat"]),
                .target(name: "WireFormat", dependencies: [.product(name: "Atomics", package: "swift-atomics")]),
                .target(name: "Probe", dependencies: ["Worker"], path: "Tests/Probe"),
                .testTarget(name: "WorkerTests", dependencies: ["Worker", "Probe"], exclude: ["a \"(\" in a string"]),
            ])
            for name in ["FuzzWorker"] {
                package.targets.append(.executableTarget(name: name, dependencies: ["Worker"] + extra, path: "Fuzz/Targets/\(name)"))
            }
            """#)
        #expect(manifest.modules.map(\.name) == ["Worker", "WireFormat"])
        #expect(manifest.byName["WireFormat"]?.dependencies == ["Atomics"])
        #expect(manifest.byName["WorkerTests"]?.dependencies == ["Worker", "Probe"])
        let fuzz = manifest.declarations.last
        #expect(fuzz == DeclaredTarget(kind: .executable, name: nil, path: "Fuzz/Targets/", dependencies: nil))
        #expect(Self.dependentsOfWorker(in: manifest).isEmpty)
    }
}
