import UploadEngine

/// Per-tenant series (DESIGN §12): only tenants the operator named in `limits.tenantWeights` get their own; every
/// other tenant is counted as `other`, so no job can create a time series.
extension WorkerMetrics {
    public static let tenantTransfers = "attache_tenant_transfers"
    public static let tenantQueuedFiles = "attache_tenant_queued_files"
    public static let tenantBytes = "attache_tenant_uploaded_bytes_total"

    /// Declares the tenant families with `named` as the only tenants that keep a series of their own.
    func declareTenants(_ named: Set<String>) {
        let domain: [String: LabelDomain] = ["tenant": .words(named)]
        registry.declare(Self.tenantTransfers, .gauge, help: "Transfer slots held, by tenant (tenants not in limits.tenantWeights are other).",
                         labels: domain)
        registry.declare(Self.tenantQueuedFiles, .gauge, help: "Files waiting for a transfer slot, by tenant.", labels: domain)
        registry.declare(Self.tenantBytes, .counter, help: "Bytes of files uploaded, by tenant.", labels: domain)
    }

    /// Sets the tenant gauges from the shares' counts: each named tenant (0 when idle) and the rest summed as `other`.
    func refreshTenants(_ loads: [TransferShares.TenantLoad], named: Set<String>) {
        var held: [String: Int] = Dictionary(uniqueKeysWithValues: named.map { ($0, 0) })
        var waiting = held
        held[MetricsRegistry.otherValue] = 0
        waiting[MetricsRegistry.otherValue] = 0
        for load in loads {
            let label = named.contains(load.tenant) ? load.tenant : MetricsRegistry.otherValue
            held[label, default: 0] += load.held
            waiting[label, default: 0] += load.waiting
        }
        registry.replace(Self.tenantTransfers, with: held.map { (labels: ["tenant": $0.key], value: Double($0.value)) })
        registry.replace(Self.tenantQueuedFiles, with: waiting.map { (labels: ["tenant": $0.key], value: Double($0.value)) })
    }

    /// Counts an upload's bytes for its tenant (`other` unless named).
    func countUploaded(_ bytes: Int64, tenant: String?) {
        registry.increment(Self.tenantBytes, by: Double(bytes), labels: ["tenant": tenant ?? MetricsRegistry.otherValue])
    }
}
