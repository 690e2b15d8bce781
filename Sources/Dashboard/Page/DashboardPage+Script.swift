extension DashboardPage {
    /// The page's script, plain ES2020 with no library: keeps the rows and panels the stream sends, draws the
    /// virtualised table (only the rows in view are in the DOM, so thousands of batches scroll and filter at once),
    /// the SVG charts and the batch page, and reconnects on its own. The server starts every connection with a
    /// snapshot, so after a reconnect (the dashboard restarted) the page simply starts over from it and fetches the
    /// batch it shows again.
    static let script = #"""
    "use strict";
    (() => {
    const STATES = ["queued", "uploading", "uploaded", "retrying", "failed", "rejected", "removed"];
    // Codes take the colour family of their outcome: reds for failures, oranges for rejections, purples for messages.
    const CODE_COLORS = { failed: ["#d93a3a", "#e0607e", "#a61e4d", "#f08c8c"], rejected: ["#d9822b", "#b8860b", "#e8a95c", "#a0522d"],
      message: ["#8b5cf6", "#6d28d9", "#b39ddb", "#5b6bd6"] };
    const WORKER_COLORS = ["#2f6fed", "#0f9f8f", "#8b5cf6", "#d9822b", "#c2417f", "#1f9d55", "#5b6bd6", "#7a8699"];
    const ROW = 30;
    // Sent back with every control request: only this dashboard's own page holds it.
    let csrf = document.querySelector('meta[name="attache-csrf"]').content;
    const $ = (id) => document.getElementById(id);
    const model = { rows: new Map(), sorted: [], filtered: [], needsSort: true, needsFilter: true, errors: null,
      throughput: null, workers: [], deadLetters: [], feed: {}, controls: false, offset: 0, version: 0, snapshots: 0 };
    const dirty = new Set();
    let frame = 0, source = null, retryTimer = 0, detail = null, detailTimer = 0, detailDue = false;

    const esc = (v) => String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
    const now = () => Date.now() + model.offset;
    function bytes(n) {
      if (n == null) return "–";
      const units = ["B", "KiB", "MiB", "GiB", "TiB"];
      let v = n, u = 0;
      while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
      return u === 0 ? `${n} B` : `${v.toFixed(v >= 100 ? 0 : 1)} ${units[u]}`;
    }
    function ago(t) {
      if (!t) return "–";
      const s = Math.max(0, Math.round((now() - t) / 1000));
      if (s < 60) return `${s}s`;
      if (s < 3600) return `${Math.floor(s / 60)}m`;
      if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
      return `${Math.floor(s / 86400)}d`;
    }
    const clock = (t) => new Date(t).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
    const stamp = (t) => new Date(t).toISOString().replace("T", " ").replace("Z", " UTC");
    const colorOf = (name, list, palette) => palette[Math.max(0, list.indexOf(name)) % palette.length];
    function codeColor(code) {
      const totals = (model.errors && model.errors.totals) || [];
      const entry = totals.find((t) => t.code === code) || { kind: "failed" };
      const same = totals.filter((t) => t.kind === entry.kind).map((t) => t.code);
      return colorOf(code, same, CODE_COLORS[entry.kind] || CODE_COLORS.failed);
    }
    const workerColor = (source, names) => colorOf(source, names, WORKER_COLORS);
    // Charts are drawn at the size they show, so their text is not stretched.
    const widthOf = (id, fallback) => Math.max(120, Math.round($(id).clientWidth || fallback));
    function schedule(part) { dirty.add(part); if (!frame) frame = requestAnimationFrame(render); }

    // The stream: a snapshot starts every connection, deltas follow.
    function connect() {
      clearTimeout(retryTimer);
      source = new EventSource("/events");
      source.addEventListener("snapshot", (e) => takeSnapshot(JSON.parse(e.data)));
      source.addEventListener("delta", (e) => takeDelta(JSON.parse(e.data)));
      source.onerror = () => {
        setConnection("reconnecting", "reconnecting…");
        // The browser retries by itself while the stream merely dropped; once it gives up, start over.
        if (source.readyState === EventSource.CLOSED) retryTimer = setTimeout(connect, 1000);
      };
    }
    function setConnection(cls, text) {
      const el = $("conn");
      el.className = `pill conn ${cls}`;
      el.textContent = text;
    }
    function takeSnapshot(m) {
      model.offset = m.now - Date.now();
      model.controls = m.controls;
      model.version = m.version;
      model.rows = new Map(m.batches.map((r) => [r.id, r]));
      model.needsSort = true;
      takePanels(m);
      model.snapshots += 1;
      document.documentElement.dataset.snapshots = String(model.snapshots);
      if (model.snapshots > 1) refreshCsrf();
      setConnection("live", "live");
      const mode = $("mode");
      mode.textContent = m.controls ? "controls on" : "read-only";
      mode.className = m.controls ? "pill controls" : "pill";
      ["table", "kpis", "errors", "throughput", "workers", "dead", "codes", "notice"].forEach(schedule);
      if (detail) refreshDetail(true);
    }
    // A reconnect may reach a restarted dashboard, whose CSRF token is new: read it from a fresh copy of the page.
    function refreshCsrf() {
      const after = model.snapshots;
      fetch("/", { cache: "no-store" }).then((r) => r.ok ? r.text() : "").then((html) => {
        const meta = new DOMParser().parseFromString(html, "text/html").querySelector('meta[name="attache-csrf"]');
        if (meta) { csrf = meta.content; document.documentElement.dataset.csrfSnapshot = String(after); }
      }).catch(() => {});
    }
    function takeDelta(m) {
      model.offset = m.now - Date.now();
      model.version = m.version;
      let openChanged = false;
      for (const r of m.batches) {
        const old = model.rows.get(r.id);
        // Updated in place: the sorted and filtered lists hold the same objects, so only a new row or a new
        // creation time needs a sort.
        if (!old) { model.rows.set(r.id, r); model.needsSort = true; }
        else { if (old.created !== r.created) model.needsSort = true; Object.assign(old, r); }
        if (detail && r.id === detail.id) openChanged = true;
      }
      for (const id of m.removed) { model.rows.delete(id); model.needsSort = true; }
      if (m.batches.length || m.removed.length) { model.needsFilter = true; schedule("table"); schedule("kpis"); schedule("codes"); }
      takePanels(m);
      if (openChanged) refreshDetail(false);
    }
    function takePanels(m) {
      if (m.feed) { model.feed = m.feed; schedule("kpis"); schedule("notice"); }
      if (m.errors) { model.errors = m.errors; schedule("errors"); }
      if (m.throughput) { model.throughput = m.throughput; schedule("throughput"); }
      if (m.workers) { model.workers = m.workers; schedule("workers"); schedule("kpis"); }
      if (m.deadLetters) { model.deadLetters = m.deadLetters; schedule("dead"); schedule("kpis"); }
    }

    function render() {
      frame = 0;
      const parts = new Set(dirty);
      dirty.clear();
      const onOverview = !detail;
      if (parts.has("kpis")) renderKpis();
      if (parts.has("notice")) renderNotice();
      if (parts.has("codes")) renderCodeFilter();
      if (onOverview) {
        if (parts.has("table")) renderTable();
        if (parts.has("errors")) renderErrors();
        if (parts.has("throughput")) renderThroughput();
        if (parts.has("workers")) renderWorkers();
        if (parts.has("dead")) renderDead();
      }
      if (parts.has("detail")) renderDetail();
      if (!document.documentElement.dataset.ready && model.snapshots > 0) {
        document.documentElement.dataset.ready = String(Math.round(performance.now()));
      }
    }

    function totals() {
      const t = { batches: model.rows.size, progress: 0, states: STATES.map(() => 0) };
      for (const r of model.rows.values()) {
        if (r.status === "in-progress") t.progress++;
        r.files.forEach((n, i) => { t.states[i] += n; });
      }
      return t;
    }
    function renderKpis() {
      const t = totals();
      const f = model.feed || {};
      const kpi = (value, label, cls = "") => `<div class="kpi ${cls}"><b>${esc(value)}</b><span>${esc(label)}</span></div>`;
      $("kpis").innerHTML = [
        kpi(t.batches.toLocaleString(), "batches"),
        kpi(t.progress.toLocaleString(), "in progress"),
        kpi(t.states[2].toLocaleString(), "files uploaded", "good"),
        kpi(t.states[4].toLocaleString(), "failed", t.states[4] ? "bad" : ""),
        kpi(t.states[5].toLocaleString(), "rejected", t.states[5] ? "warn" : ""),
        kpi(model.deadLetters.length.toLocaleString(), "dead letters", model.deadLetters.length ? "bad" : ""),
        kpi(model.workers.length.toLocaleString(), "workers"),
        kpi((f.events || 0).toLocaleString(), "events read"),
      ].join("");
    }
    function renderNotice() {
      const f = model.feed || {}, el = $("notice");
      const notes = [];
      if (f.caughtUp === false) notes.push(`Reading the topics' history: ${(f.events || 0).toLocaleString()} events so far…`);
      if (f.evicted) notes.push(`${f.evicted.toLocaleString()} older batches were let go to keep the newest ${f.maxBatches.toLocaleString()} (dashboard.maxBatches).`);
      el.hidden = notes.length === 0;
      el.textContent = notes.join(" ");
    }
    function renderCodeFilter() {
      const select = $("f-code"), chosen = select.value;
      const codes = new Set();
      for (const r of model.rows.values()) r.codes.forEach((c) => codes.add(c));
      if (model.errors) model.errors.totals.forEach((t) => codes.add(t.code));
      const list = [...codes].sort();
      const options = `<option value="">any error code</option>` + list.map((c) => `<option${c === chosen ? " selected" : ""}>${esc(c)}</option>`).join("");
      if (select.innerHTML !== options) select.innerHTML = options;
    }

    // The table: newest batch first, filtered, only the rows in view drawn.
    function filters() {
      return { state: $("f-state").value, code: $("f-code").value, receiver: $("f-receiver").value.trim().toLowerCase(),
        tenant: $("f-tenant").value.trim().toLowerCase(), batch: $("f-batch").value.trim().toLowerCase() };
    }
    function matches(r, f) {
      if (f.state === "in-progress" || f.state === "idle") { if (r.status !== f.state) return false; }
      else if (f.state === "failed") { if (!r.files[4] && !r.files[3]) return false; }
      else if (f.state === "rejected") { if (!r.files[5]) return false; }
      if (f.code && !r.codes.includes(f.code)) return false;
      if (f.receiver && !(r.receiver || "").toLowerCase().includes(f.receiver)) return false;
      if (f.tenant && !(r.tenant || "").toLowerCase().includes(f.tenant)) return false;
      if (f.batch && !r.id.toLowerCase().includes(f.batch)) return false;
      return true;
    }
    function renderTable() {
      if (model.needsSort) {
        model.sorted = [...model.rows.values()].sort((a, b) => b.created - a.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        model.needsSort = false;
        model.needsFilter = true;
      }
      if (model.needsFilter) {
        const f = filters();
        model.filtered = f.state || f.code || f.receiver || f.tenant || f.batch ? model.sorted.filter((r) => matches(r, f)) : model.sorted;
        model.needsFilter = false;
      }
      const n = model.filtered.length;
      $("batch-count").textContent = n === model.rows.size ? `${n.toLocaleString()} batches` : `${n.toLocaleString()} of ${model.rows.size.toLocaleString()} batches`;
      $("batches-empty").hidden = n > 0;
      $("batches-empty").textContent = model.rows.size ? "No batch matches the filters." : "No batches yet.";
      $("vspacer").style.height = `${n * ROW}px`;
      drawRows();
    }
    function drawRows() {
      const scroller = $("vscroll");
      const first = Math.max(0, Math.floor(scroller.scrollTop / ROW) - 8);
      const last = Math.min(model.filtered.length, Math.ceil((scroller.scrollTop + scroller.clientHeight) / ROW) + 8);
      const rows = $("vrows");
      rows.style.transform = `translateY(${first * ROW}px)`;
      let html = "";
      for (let i = first; i < last; i++) html += rowHtml(model.filtered[i]);
      rows.innerHTML = html;
    }
    function rowHtml(r) {
      const [queued, uploading, uploaded, retrying, failed, rejected, removed] = r.files;
      const live = queued + uploading + retrying;
      const all = queued + uploading + uploaded + retrying + failed + rejected;
      const seg = (n, state) => n ? `<i style="width:${(100 * n / all).toFixed(1)}%;background:var(--${state})"></i>` : "";
      const chips = [
        uploaded ? `<span class="chip uploaded" title="uploaded">✓ ${uploaded}</span>` : "",
        live ? `<span class="chip active" title="queued or uploading">↑ ${live}</span>` : "",
        failed ? `<span class="chip failed" title="failed">✕ ${failed}</span>` : "",
        rejected ? `<span class="chip rejected" title="rejected">⊘ ${rejected}</span>` : "",
        removed ? `<span class="chip" title="removed">− ${removed}</span>` : "",
      ].join("");
      // The tenant is shown only when it is not the receiver (its default).
      const tenant = r.tenant && r.tenant !== r.receiver ? ` <span class="muted tenant" title="tenant">${esc(r.tenant)}</span>` : "";
      const receiver = r.receiver ? `${esc(r.receiver)} <span class="muted">${esc(r.receiverType || "")}</span>${tenant}` : `<span class="muted">–</span>`;
      const bytesText = r.total && r.total !== r.loaded ? `${bytes(r.loaded)} / ${bytes(r.total)}` : bytes(r.loaded);
      return `<div class="vrow row-grid" data-id="${esc(r.id)}" data-uploaded="${uploaded}" data-failed="${failed}" data-rejected="${rejected}" data-active="${live}">`
        + `<span class="id" title="${esc(r.id)}">${esc(r.id)}</span><span>${receiver}</span>`
        + `<span class="chips"><span class="stack">${seg(uploaded, "uploaded")}${seg(uploading + queued, "uploading")}${seg(retrying, "retrying")}${seg(failed, "failed")}${seg(rejected, "rejected")}</span>${chips}</span>`
        + `<span class="num">${bytesText}</span><span class="state ${r.status}">${r.status === "idle" ? "idle" : "in progress"}</span>`
        + `<span class="num" title="${esc(stamp(r.created))}">${ago(r.created)}</span>`
        + `<span class="muted" title="${esc(stamp(r.updated))}">${esc(r.last)} · ${ago(r.updated)}</span></div>`;
    }

    // Panels.
    function renderErrors() {
      const e = model.errors || { totals: [], buckets: [], latest: [] };
      const codes = e.totals.map((t) => t.code);
      const minute = 60000, end = Math.floor(now() / minute) * minute, start = end - 59 * minute;
      const w = widthOf("errors-chart", 400), h = 120, pad = 18, bw = (w - 4) / 60;
      const byTime = new Map(e.buckets.map((b) => [b.time, b.counts]));
      let max = 1;
      for (const b of e.buckets) if (b.time >= start) max = Math.max(max, Object.values(b.counts).reduce((a, c) => a + c, 0));
      let bars = "";
      for (let i = 0; i < 60; i++) {
        const t = start + i * minute, counts = byTime.get(t);
        if (!counts) continue;
        let y = h - pad;
        for (const code of codes) {
          const c = counts[code];
          if (!c) continue;
          const bh = Math.max(1, (h - pad - 6) * c / max);
          y -= bh;
          bars += `<rect x="${(2 + i * bw).toFixed(1)}" y="${y.toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${bh.toFixed(1)}" fill="${codeColor(code)}"><title>${esc(code)}: ${c} at ${clock(t)}</title></rect>`;
        }
      }
      $("errors-chart").innerHTML = `<svg viewBox="0 0 ${w} ${h}">`
        + `<line class="axis" x1="0" x2="${w}" y1="${h - pad}" y2="${h - pad}"/>${bars}`
        + `<text x="0" y="${h - 3}">−60 min</text><text x="${w / 2}" y="${h - 3}" text-anchor="middle">−30</text><text x="${w}" y="${h - 3}" text-anchor="end">now</text>`
        + `<text x="0" y="10">${max} per minute at most</text></svg>`;
      $("errors-legend").innerHTML = e.totals.length
        ? e.totals.map((t) => `<span data-code="${esc(t.code)}"><i style="background:${codeColor(t.code)}"></i><span class="mono">${esc(t.code)}</span> <b>${t.count}</b> <span class="muted">${esc(t.kind)}</span></span>`).join("")
        : `<span class="nothing">No failures or rejections.</span>`;
      $("errors-latest").innerHTML = e.latest.length ? e.latest.map((n) => `<div class="item" data-kind="${esc(n.kind)}">`
        + `<span class="code ${n.kind === "rejected" ? "rejected" : ""}">${esc(n.code)}</span>`
        + `<a class="what" href="#/batch/${encodeURIComponent(n.batchId)}">${esc(n.batchId)} / ${esc(n.subject)}</a>`
        + `<span class="when" title="${esc(stamp(n.time))}">${n.kind}${n.willRetry ? ", retrying" : ""} · ${ago(n.time)} ago</span>`
        + `<span class="msg" title="${esc(n.message)}">${esc(n.message || "(no message)")}${n.source ? ` <span class="muted">— ${esc(n.source)}</span>` : ""}</span></div>`).join("")
        : `<div class="nothing">Nothing has failed.</div>`;
    }
    // Columns of ten seconds over fifteen minutes, one colour per worker, stacked.
    function columnChart(id, series, key, format) {
      const w = widthOf(id, 200), h = 70, bucket = (model.throughput && model.throughput.bucket) || 10000;
      const count = Math.round(15 * 60000 / bucket), last = Math.floor(now() / bucket) * bucket, first = last - (count - 1) * bucket;
      const names = series.map((s) => s.source), totals = new Map();
      for (const s of series) for (const b of s.buckets) if (b[0] >= first) totals.set(b[0], (totals.get(b[0]) || 0) + b[key]);
      const peak = Math.max(0, ...totals.values()) / (bucket / 1000);
      const cw = w / count, base = h - 12;
      let bars = "";
      for (const s of series) {
        for (const b of s.buckets) {
          if (b[0] < first || !b[key]) continue;
          const below = series.slice(0, names.indexOf(s.source)).reduce((sum, o) => sum + ((o.buckets.find((x) => x[0] === b[0]) || [0, 0, 0])[key]), 0);
          const scale = (base - 8) / (peak * (bucket / 1000) || 1);
          const y = base - (below + b[key]) * scale, bh = Math.max(1, b[key] * scale);
          bars += `<rect x="${((b[0] - first) / bucket * cw).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, cw - 1).toFixed(1)}" height="${bh.toFixed(1)}" fill="${workerColor(s.source, names)}"><title>${esc(s.source)}: ${format(b[key] / (bucket / 1000))} at ${clock(b[0])}</title></rect>`;
        }
      }
      $(id).innerHTML = `<svg viewBox="0 0 ${w} ${h}"><line class="axis" x1="0" x2="${w}" y1="${base}" y2="${base}"/>${bars}`
        + `<text x="0" y="${h - 1}">−15 min</text><text x="${w}" y="${h - 1}" text-anchor="end">now</text>`
        + `<text x="0" y="8">${peak ? `peak ${format(peak)}` : "idle"}</text></svg>`;
    }
    function renderThroughput() {
      const series = (model.throughput && model.throughput.workers) || [];
      columnChart("tp-files", series, 1, (v) => `${v.toFixed(1)}/s`);
      columnChart("tp-bytes", series, 2, (v) => `${bytes(Math.round(v))}/s`);
      const end = now(), names = series.map((s) => s.source);
      const rate = (s, key, seconds) => s.buckets.filter((b) => b[0] > end - seconds * 1000).reduce((a, b) => a + b[key], 0) / seconds;
      $("tp-table").innerHTML = series.length ? `<table><thead><tr><th>worker</th><th class="num">files/s</th><th class="num">bytes/s</th><th class="num">15 min</th></tr></thead><tbody>`
        + series.map((s) => `<tr data-worker="${esc(s.source)}"><td><span class="dot" style="background:${workerColor(s.source, names)}"></span>${esc(s.source)}</td>`
          + `<td class="num" title="over the last minute">${rate(s, 1, 60).toFixed(2)}</td><td class="num" title="over the last minute">${bytes(Math.round(rate(s, 2, 60)))}/s</td>`
          + `<td class="num">${Math.round(rate(s, 1, 900) * 900)} files · ${bytes(Math.round(rate(s, 2, 900) * 900))}</td></tr>`).join("")
        + `</tbody></table>` : `<div class="nothing">No uploads in the last 15 minutes.</div>`;
    }
    function renderWorkers() {
      const list = model.workers;
      $("workers-count").textContent = `${list.length} seen`;
      $("workers-list").innerHTML = list.length ? `<table><thead><tr><th>worker</th><th class="num">last published</th><th class="num">first seen</th><th class="num">events</th></tr></thead><tbody>`
        + list.map((w) => {
          const quiet = now() - w.lastSeen;
          return `<tr data-worker="${esc(w.source)}"><td><span class="dot ${quiet < 60000 ? "fresh" : quiet < 900000 ? "quiet" : ""}"></span>${esc(w.source)}</td>`
            + `<td class="num" title="${esc(stamp(w.lastSeen))}">${ago(w.lastSeen)} ago</td><td class="num" title="${esc(stamp(w.firstSeen))}">${ago(w.firstSeen)} ago</td>`
            + `<td class="num">${w.events.toLocaleString()}</td></tr>`;
        }).join("") + `</tbody></table>` : `<div class="nothing">No worker has published yet.</div>`;
    }
    function renderDead() {
      const list = model.deadLetters;
      $("dead-count").textContent = `${list.length} listed`;
      $("dead-list").innerHTML = list.length ? list.map((d) => `<div class="item dead-letter" data-provenance="${esc(d.provenance)}">`
        + `<span class="mono">${esc(d.provenance)}</span><span class="what muted">key ${esc(d.key ?? "(none)")}</span>`
        + `<span class="when" title="${esc(stamp(d.time))}">${ago(d.time)} ago</span>`
        + `<span class="msg err" title="${esc(d.error)}">${esc(d.error || "(no reason given)")}</span>`
        + `<span class="msg mono" title="${esc(d.preview)}">${d.copy ? `stored at ${esc(d.copy)}` : esc(d.outcome ? `not stored: ${d.outcome}` : "copy not read yet")}${d.preview ? ` · ${esc(d.preview)}` : ""}</span></div>`).join("")
        : `<div class="nothing">No dead letters.</div>`;
    }

    // The batch page.
    function route() {
      const m = location.hash.match(/^#\/batch\/(.+)$/);
      const overview = $("overview"), page = $("batch");
      if (m) {
        detail = { id: decodeURIComponent(m[1]), data: null, missing: false };
        overview.hidden = true;
        page.hidden = false;
        page.innerHTML = `<a class="crumb" href="#/">← All batches</a><div class="nothing">Loading ${esc(detail.id)}…</div>`;
        refreshDetail(true);
      } else {
        detail = null;
        page.hidden = true;
        overview.hidden = false;
        ["table", "errors", "throughput", "workers", "dead"].forEach(schedule);
      }
      window.scrollTo(0, 0);
    }
    function refreshDetail(immediately) {
      if (!detail) return;
      if (!immediately) {
        if (detailTimer) { detailDue = true; return; }
        detailTimer = setTimeout(() => { detailTimer = 0; if (detailDue) { detailDue = false; refreshDetail(true); } }, 250);
      }
      const asked = detail.id;
      fetch(`/api/batches/${encodeURIComponent(asked)}`, { cache: "no-store" }).then((r) => r.ok ? r.json() : null).then((d) => {
        if (!detail || detail.id !== asked) return;
        detail.data = d;
        detail.missing = !d;
        schedule("detail");
      }).catch(() => {});
    }
    function renderDetail() {
      if (!detail) return;
      const page = $("batch"), d = detail.data;
      if (!d) {
        page.innerHTML = `<a class="crumb" href="#/">← All batches</a><div class="panel"><div class="nothing">${detail.missing ? `The dashboard holds no batch ${esc(detail.id)}.` : "Loading…"}</div></div>`;
        return;
      }
      const counts = Object.fromEntries(STATES.map((s, i) => [s, d.files[i]]));
      const controls = d.controls;
      const files = d.fileList.map((f) => {
        const pct = f.state === "uploaded" ? 100 : f.percent;
        const size = f.total != null ? `${bytes(f.loaded)} / ${bytes(f.total)}` : bytes(f.loaded);
        const actions = controls && f.state === "failed"
          ? `<div class="actions"><button class="primary" data-control="retry" data-file="${esc(f.fileId)}">Retry</button><button class="danger" data-control="remove" data-file="${esc(f.fileId)}">Remove</button></div>` : "";
        const error = f.error ? `<div class="err"><span class="code ${f.state === "rejected" ? "rejected" : ""}">${esc(f.error.code)}</span> ${esc(f.error.message)}</div>` : "";
        return `<tr class="file" data-file="${esc(f.fileId)}" data-state="${esc(f.state)}">`
          + `<td><div class="fname">${esc(f.name)}</div><div class="fid">${esc(f.fileId)}${f.mimeType ? ` · ${esc(f.mimeType)}` : ""}</div></td>`
          + `<td><div class="progress"><div class="bar ${esc(f.state)}" data-percent="${pct}"><i style="width:${pct}%"></i></div><span class="pct">${pct}%</span></div>${error}</td>`
          + `<td class="num">${size}</td><td><span class="state ${esc(f.state)}">${esc(f.state)}</span>${f.attempt ? ` <span class="muted">attempt ${f.attempt}</span>` : ""}</td><td>${actions}</td></tr>`;
      }).join("");
      const attachments = d.fileList.filter((f) => f.attachment).map((f) => {
        const a = f.attachment;
        return `<tr><td><a href="${esc(a.url)}" target="_blank" rel="noopener noreferrer">${esc(a.name)}</a></td><td>${esc(a.type)}</td><td class="mono">${esc(a.mimeType)}</td>`
          + `<td class="num">${bytes(a.size)}</td><td class="mono" title="${esc(a.sha256)}">${esc(a.sha256.slice(0, 16))}…</td></tr>`;
      }).join("");
      const messages = d.messages.map((m) => `<tr data-muid="${esc(m.muid)}"><td class="mono" title="${esc(m.muid)}">${esc(m.muid.slice(0, 8))}…</td><td>${esc(m.messageType || "–")}</td>`
        + `<td class="wrap">${esc(m.fileIds.join(", "))}</td><td><span class="state ${m.state === "sent" ? "sent" : m.state}">${esc(m.state)}</span></td>`
        + `<td>${m.responseId ? `id ${esc(m.responseId)}` : m.error ? `<span class="code">${esc(m.error.code)}</span> ${esc(m.error.message)}` : ""}</td></tr>`).join("");
      const timeline = d.timeline.map((t) => `<tr><td class="mono muted" title="${esc(stamp(t.time))}">${clock(t.time)}</td>`
        + `<td><span class="kind ${esc(t.kind.replace(/[^a-z]/g, "-"))}">${esc(t.kind)}</span></td><td>${esc(t.fileId || "")}</td>`
        + `<td>${esc(t.detail)}</td><td class="muted">${esc(t.source ? t.source.replace(/^attache\//, "") : "")}</td></tr>`).join("");
      const table = (head, body, empty) => body ? `<table><thead><tr>${head.map((h) => `<th${h.startsWith("#") ? ` class="num"` : ""}>${esc(h.replace("#", ""))}</th>`).join("")}</tr></thead><tbody>${body}</tbody></table>` : `<div class="nothing">${empty}</div>`;
      page.innerHTML = `<a class="crumb" href="#/">← All batches</a>`
        + `<div class="batch-head"><div><h1 id="batch-title">${esc(d.id)}</h1><div class="facts">`
        + `<span class="state ${d.status}">${d.status === "idle" ? "idle" : "in progress"}</span>`
        + `<span>receiver <b>${esc(d.receiver || "–")}</b> ${esc(d.receiverType || "")}</span><span>sender <b>${esc(d.sender || "–")}</b></span>`
        + `<span><b>${counts.uploaded}</b> uploaded</span><span><b>${counts.queued + counts.uploading + counts.retrying}</b> pending</span>`
        + `<span><b>${counts.failed}</b> failed</span><span><b>${counts.rejected}</b> rejected</span>`
        + `<span><b>${bytes(d.loaded)}</b> of ${bytes(d.total)}</span><span>drained <b>${d.drains}</b>×</span>`
        + `<span>created <b title="${esc(stamp(d.created))}">${ago(d.created)} ago</b></span></div></div>`
        + `<div class="actions">${controls ? `<button class="primary" data-control="send">Send</button>` : `<span class="pill">read-only</span>`}</div></div>`
        + `<div class="batch-grid"><section class="panel wide"><div class="panel-head"><h2>Files</h2><span class="count">${d.fileList.length} tracked${d.untracked ? `, ${d.untracked} more` : ""}${d.unlistedRejections ? `, ${d.unlistedRejections} older rejections` : ""}</span></div>`
        + table(["file", "progress", "#bytes", "state", ""], files, "No files.") + `</section>`
        + `<section class="panel"><div class="panel-head"><h2>Attachments</h2></div>${table(["name", "type", "mime type", "#size", "sha256"], attachments, "Nothing stored yet.")}</section>`
        + `<section class="panel"><div class="panel-head"><h2>Messages</h2></div>${table(["muid", "type", "files", "state", "answer"], messages, "No message sent.")}</section>`
        + `<section class="panel wide timeline"><div class="panel-head"><h2>Timeline</h2><span class="count">newest first${d.droppedTimeline ? `, ${d.droppedTimeline} older entries let go` : ""}</span></div>`
        + table(["time", "event", "file", "detail", "worker"], timeline, "Nothing yet.") + `</section></div>`;
    }
    function toast(text, bad) {
      const el = document.createElement("div");
      el.className = `toast${bad ? " bad" : ""}`;
      el.textContent = text;
      document.body.appendChild(el);
      setTimeout(() => el.remove(), 4000);
    }
    function sendControl(button) {
      if (!detail) return;
      const body = { kind: button.dataset.control, batchId: detail.id };
      if (button.dataset.file) body.fileId = button.dataset.file;
      button.disabled = true;
      fetch("/api/control", { method: "POST", headers: { "Content-Type": "application/json", "X-Attache-CSRF": csrf },
        body: JSON.stringify(body) })
        .then((r) => r.json().then((j) => ({ ok: r.ok, j })))
        .then(({ ok, j }) => {
          toast(ok ? `${body.kind}${body.fileId ? ` ${body.fileId}` : ""} sent (${j.stored})` : `refused: ${j.error ? j.error.message : "?"}`, !ok);
          document.documentElement.dataset.lastControl = ok ? `${body.kind}:${body.fileId || ""}` : "refused";
        })
        .catch((e) => toast(`could not send: ${e}`, true))
        .finally(() => { button.disabled = false; });
    }

    $("vscroll").addEventListener("scroll", () => { if (!frame) frame = requestAnimationFrame(() => { frame = 0; drawRows(); }); }, { passive: true });
    $("vrows").addEventListener("click", (e) => {
      const row = e.target.closest(".vrow");
      if (row) location.hash = `#/batch/${encodeURIComponent(row.dataset.id)}`;
    });
    $("batch").addEventListener("click", (e) => {
      const button = e.target.closest("button[data-control]");
      if (button) sendControl(button);
    });
    for (const id of ["f-state", "f-code", "f-receiver", "f-tenant", "f-batch"]) {
      $(id).addEventListener("input", () => { model.needsFilter = true; $("vscroll").scrollTop = 0; schedule("table"); });
    }
    window.addEventListener("hashchange", route);
    // Ages and the sliding windows move with the clock.
    setInterval(() => { ["table", "errors", "throughput", "workers", "dead"].forEach(schedule); }, 5000);
    route();
    connect();
    })();
    """#
}
