import Foundation

/// The dashboard's page: one HTML document, one style sheet and one script, embedded in the binary as Swift string
/// literals — no CDN, no build step, nothing fetched but what this server answers. The script is in
/// `DashboardPage+Script.swift`, the style in `DashboardPage+Style.swift`.
///
/// The document is the frame the script fills: the overview (the batch table with its filters, and the panels) and
/// the batch page, shown by the location's hash (`#/batch/ID`), so a page reloaded or reconnected shows the same view.
enum DashboardPage {
    /// The document with the process's CSRF token in its `attache-csrf` meta element, where the script reads it.
    static func html(csrf: CSRFToken) -> String {
        template.replacingOccurrences(of: csrfSlot, with: csrf.value)
    }

    private static let csrfSlot = "{{csrf}}"

    private static let template = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="attache-csrf" content="{{csrf}}">
    <title>Attache dashboard</title>
    <link rel="stylesheet" href="/app.css">
    </head>
    <body>
    <header class="top">
      <a class="brand" href="#/"><span class="mark">A</span> Attache <span class="sub">dashboard</span></a>
      <div class="kpis" id="kpis"></div>
      <div class="status">
        <span class="pill" id="mode" title="controls">read-only</span>
        <span class="pill conn connecting" id="conn">connecting…</span>
      </div>
    </header>
    <div class="notice" id="notice" hidden></div>
    <main id="overview" class="view">
      <section class="panel batches">
        <div class="panel-head">
          <h2>Batches</h2>
          <div class="filters">
            <select id="f-state" aria-label="state">
              <option value="">all states</option>
              <option value="in-progress">in progress</option>
              <option value="idle">idle</option>
              <option value="failed">with failures</option>
              <option value="rejected">with rejections</option>
            </select>
            <select id="f-code" aria-label="error code"><option value="">any error code</option></select>
            <input id="f-receiver" type="search" placeholder="receiver" aria-label="receiver" autocomplete="off">
            <input id="f-tenant" type="search" placeholder="tenant" aria-label="tenant" autocomplete="off">
            <input id="f-batch" type="search" placeholder="batch id" aria-label="batch id" autocomplete="off">
          </div>
          <span class="count" id="batch-count"></span>
        </div>
        <div class="thead row-grid">
          <span>batch</span><span>receiver</span><span>files</span><span class="num">bytes</span><span>status</span>
          <span class="num">age</span><span>last event</span>
        </div>
        <div class="vscroll" id="vscroll">
          <div class="vspacer" id="vspacer"></div>
          <div class="vrows" id="vrows"></div>
          <div class="empty" id="batches-empty" hidden>No batches yet.</div>
        </div>
      </section>
      <section class="panel errors">
        <div class="panel-head"><h2>Errors by code</h2><span class="count">last 60 min</span></div>
        <div id="errors-chart" class="chart"></div>
        <div id="errors-legend" class="legend"></div>
        <h3>Latest failures and rejections</h3>
        <div id="errors-latest" class="list"></div>
      </section>
      <section class="panel throughput">
        <div class="panel-head"><h2>Throughput</h2><span class="count">last 15 min, per worker</span></div>
        <div class="chart-pair">
          <div><h3>files/s</h3><div id="tp-files" class="chart small"></div></div>
          <div><h3>bytes/s</h3><div id="tp-bytes" class="chart small"></div></div>
        </div>
        <div id="tp-table"></div>
      </section>
      <section class="panel dead">
        <div class="panel-head"><h2>Dead letters</h2><span class="count" id="dead-count"></span></div>
        <div id="dead-list" class="list"></div>
      </section>
      <section class="panel workers">
        <div class="panel-head"><h2>Workers</h2><span class="count" id="workers-count"></span></div>
        <div id="workers-list"></div>
      </section>
    </main>
    <main id="batch" class="view" hidden></main>
    <script src="/app.js"></script>
    </body>
    </html>
    """#
}
