extension DashboardPage {
    /// A light, dense operator style: system fonts, tabular numbers, one accent, a colour per file state.
    static let style = #"""
    :root {
      --bg: #f4f6f9; --panel: #ffffff; --line: #e3e7ee; --line2: #eef1f5; --text: #1d2430; --muted: #6b7585;
      --accent: #2f6fed; --accent-soft: #e8f0fe;
      --queued: #9aa3b2; --uploading: #2f6fed; --uploaded: #1f9d55; --retrying: #8b5cf6; --failed: #d93a3a;
      --rejected: #d9822b; --removed: #c3c9d3;
      --row: 30px;
      font: 13px/1.4 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
      color: var(--text); background: var(--bg);
    }
    * { box-sizing: border-box; }
    [hidden] { display: none !important; }
    body { margin: 0; }
    a { color: var(--accent); text-decoration: none; }
    a:hover { text-decoration: underline; }
    h2 { font-size: 13px; font-weight: 650; margin: 0; letter-spacing: .01em; }
    h3 { font-size: 11px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .06em; margin: 12px 0 6px; }
    .num, .kpi b, td.num, .mono { font-variant-numeric: tabular-nums; }
    .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
    .muted { color: var(--muted); }

    .top { position: sticky; top: 0; z-index: 5; display: flex; align-items: center; gap: 20px; padding: 0 18px; height: 52px;
      background: #151b26; color: #e8ecf3; }
    .brand { display: flex; align-items: center; gap: 8px; color: #fff; font-weight: 650; font-size: 15px; white-space: nowrap; }
    .brand:hover { text-decoration: none; }
    .brand .mark { display: inline-grid; place-items: center; width: 24px; height: 24px; border-radius: 6px; background: var(--accent);
      font-size: 13px; }
    .brand .sub { font-weight: 400; color: #9aa6ba; }
    .kpis { display: flex; gap: 4px; flex: 1; overflow: hidden; }
    .kpi { padding: 4px 12px; border-left: 1px solid #2a3344; white-space: nowrap; }
    .kpi:first-child { border-left: 0; }
    .kpi b { display: block; font-size: 16px; font-weight: 650; color: #fff; }
    .kpi span { font-size: 11px; color: #9aa6ba; }
    .kpi.bad b { color: #ff8a8a; } .kpi.warn b { color: #f7b267; } .kpi.good b { color: #7ee2a8; }
    .status { display: flex; gap: 8px; }
    .pill { display: inline-flex; align-items: center; gap: 6px; padding: 2px 9px; border-radius: 999px; font-size: 12px;
      background: #263042; color: #c8d1df; white-space: nowrap; }
    .pill.controls { background: #3b2f12; color: #f7c66b; }
    .conn::before { content: ""; width: 7px; height: 7px; border-radius: 50%; background: #9aa6ba; }
    .conn.live::before { background: #3ddc84; box-shadow: 0 0 0 3px rgba(61,220,132,.18); }
    .conn.reconnecting::before { background: #f7b267; }
    .notice { margin: 10px 18px 0; padding: 8px 12px; border-radius: 6px; background: #fff7e6; border: 1px solid #f5d69b; color: #7a5200; }

    .view { padding: 14px 18px 24px; }
    #overview { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 14px; }
    .panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; min-width: 0; }
    .panel.batches { grid-column: span 2; padding-bottom: 0; display: flex; flex-direction: column; }
    .panel-head { display: flex; align-items: center; gap: 12px; margin-bottom: 10px; min-height: 28px; }
    .panel-head .count { margin-left: auto; color: var(--muted); font-size: 12px; white-space: nowrap; }
    .filters { display: flex; gap: 6px; flex-wrap: wrap; }
    select, input[type=search] { font: inherit; font-size: 12px; height: 26px; border: 1px solid var(--line); border-radius: 5px;
      background: #fff; color: var(--text); padding: 0 8px; }
    input[type=search] { width: 130px; }
    select:focus, input:focus { outline: 2px solid var(--accent-soft); border-color: var(--accent); }

    .row-grid { display: grid; grid-template-columns: minmax(140px, 1.4fr) minmax(130px, 1fr) minmax(150px, 1.1fr) 140px 84px 52px minmax(120px, 1fr);
      gap: 10px; align-items: center; padding: 0 10px; }
    .thead { height: 28px; font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .05em;
      border-bottom: 1px solid var(--line); margin: 0 -14px; padding: 0 24px; }
    .thead .num, .vrow .num { text-align: right; }
    .vscroll { position: relative; height: 452px; overflow-y: auto; margin: 0 -14px; }
    .vspacer { width: 1px; }
    .vrows { position: absolute; left: 0; right: 0; top: 0; }
    .vrow { height: var(--row); border-bottom: 1px solid var(--line2); cursor: pointer; padding: 0 24px; }
    .vrow:hover { background: #f7f9fc; }
    .vrow > span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .vrow .id { font-weight: 550; }
    .empty { position: absolute; inset: 40px 0 auto; text-align: center; color: var(--muted); }

    .chips { display: flex; gap: 4px; align-items: center; }
    .chip { display: inline-flex; align-items: center; gap: 3px; padding: 0 6px; height: 18px; border-radius: 4px; font-size: 11px;
      font-weight: 600; font-variant-numeric: tabular-nums; background: #eef1f5; color: #4a5466; }
    .chip.uploaded { background: #e3f5ea; color: #15703c; } .chip.failed { background: #fde8e8; color: #b42323; }
    .chip.rejected { background: #fdf0e1; color: #a3580f; } .chip.active { background: var(--accent-soft); color: #1d4fb8; }
    .chip.retrying { background: #efe9fe; color: #5b34c7; }
    .stack { display: flex; width: 46px; height: 6px; border-radius: 3px; overflow: hidden; background: #eef1f5; flex: none; }
    .stack i { display: block; height: 100%; }
    .state { display: inline-flex; align-items: center; gap: 5px; font-size: 12px; }
    .state::before { content: ""; width: 7px; height: 7px; border-radius: 50%; background: var(--queued); }
    .state.in-progress::before, .state.uploading::before { background: var(--uploading); }
    .state.idle::before, .state.uploaded::before, .state.sent::before { background: var(--uploaded); }
    .state.failed::before { background: var(--failed); } .state.rejected::before { background: var(--rejected); }
    .state.retrying::before { background: var(--retrying); } .state.removed::before { background: var(--removed); }
    .code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 11px; padding: 1px 5px; border-radius: 4px;
      background: #fde8e8; color: #b42323; white-space: nowrap; }
    .code.rejected { background: #fdf0e1; color: #a3580f; }

    .chart { width: 100%; height: 120px; }
    .chart.small { height: 70px; }
    .chart svg { width: 100%; height: 100%; display: block; overflow: visible; }
    .chart .axis { stroke: var(--line); stroke-width: 1; }
    .chart text { font-size: 10px; fill: var(--muted); }
    .chart-pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
    .legend { display: flex; flex-wrap: wrap; gap: 4px 12px; margin-top: 8px; font-size: 12px; }
    .legend span { display: inline-flex; align-items: center; gap: 5px; }
    .legend i { width: 9px; height: 9px; border-radius: 2px; }
    .list { display: flex; flex-direction: column; max-height: 230px; overflow-y: auto; }
    .item { padding: 6px 0; border-top: 1px solid var(--line2); display: grid; grid-template-columns: auto 1fr auto; gap: 2px 8px; }
    .item:first-child { border-top: 0; }
    .item .msg { grid-column: 1 / -1; color: var(--muted); font-size: 12px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .item .when { color: var(--muted); font-size: 12px; white-space: nowrap; }
    .item .what { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .nothing { color: var(--muted); padding: 8px 0; font-size: 12px; }

    table { width: 100%; border-collapse: collapse; }
    th { text-align: left; font-size: 11px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .05em;
      padding: 6px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
    td { padding: 7px 8px; border-bottom: 1px solid var(--line2); vertical-align: middle; }
    th.num, td.num { text-align: right; }
    td.wrap { word-break: break-all; }
    .dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%; margin-right: 6px; background: var(--queued); }
    .dot.fresh { background: var(--uploaded); } .dot.quiet { background: var(--rejected); }

    #batch { max-width: 1400px; }
    .crumb { font-size: 12px; margin-bottom: 8px; display: inline-block; }
    .batch-head { display: flex; align-items: flex-start; gap: 16px; margin-bottom: 14px; }
    .batch-head h1 { font-size: 20px; font-weight: 650; margin: 0 0 6px; word-break: break-all; }
    .facts { display: flex; flex-wrap: wrap; gap: 6px 18px; color: var(--muted); font-size: 12px; }
    .facts b { color: var(--text); font-weight: 550; }
    .batch-head .actions { margin-left: auto; display: flex; gap: 8px; }
    .batch-grid { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 14px; }
    .batch-grid .wide { grid-column: 1 / -1; }
    .bar { position: relative; flex: 1; height: 8px; border-radius: 4px; background: #eef1f5; overflow: hidden; min-width: 120px; max-width: 360px; }
    .bar i { position: absolute; left: 0; top: 0; bottom: 0; background: var(--uploading); border-radius: 4px; transition: width .25s ease; }
    .bar.uploaded i { background: var(--uploaded); } .bar.failed i { background: var(--failed); }
    .bar.rejected i { background: var(--rejected); } .bar.retrying i { background: var(--retrying); }
    .bar.removed i { background: var(--removed); }
    .progress { display: flex; align-items: center; gap: 8px; }
    .progress .pct { width: 38px; text-align: right; font-variant-numeric: tabular-nums; font-size: 12px; }
    .fname { font-weight: 550; }
    .fid { color: var(--muted); font-size: 11px; }
    .err { color: #b42323; font-size: 12px; }
    button { font: inherit; font-size: 12px; height: 26px; padding: 0 12px; border-radius: 5px; border: 1px solid var(--line);
      background: #fff; color: var(--text); cursor: pointer; }
    button:hover { border-color: #c5ccd8; background: #f7f9fc; }
    button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
    button.primary:hover { background: #255ed1; }
    button.danger { color: #b42323; }
    button:disabled { opacity: .5; cursor: default; }
    td .actions { display: flex; gap: 6px; justify-content: flex-end; }
    .timeline td { font-size: 12px; }
    .kind { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 11px; padding: 1px 6px; border-radius: 4px;
      background: #eef1f5; color: #3a4354; white-space: nowrap; }
    .kind.file-uploaded, .kind.message-sent { background: #e3f5ea; color: #15703c; }
    .kind.file-failed, .kind.message-failed { background: #fde8e8; color: #b42323; }
    .kind.file-rejected { background: #fdf0e1; color: #a3580f; }
    .kind.batch-completed { background: #e8f0fe; color: #1d4fb8; }
    .kind.job { background: #f1ecfe; color: #5b34c7; }
    .toast { position: fixed; right: 18px; bottom: 18px; padding: 10px 14px; border-radius: 6px; background: #151b26; color: #fff;
      box-shadow: 0 6px 24px rgba(0,0,0,.2); font-size: 12px; max-width: 420px; }
    .toast.bad { background: #8f1f1f; }
    @media (max-width: 1100px) {
      #overview { grid-template-columns: minmax(0, 1fr); }
      .panel.batches { grid-column: auto; }
      .batch-grid { grid-template-columns: minmax(0, 1fr); }
    }
    """#
}
