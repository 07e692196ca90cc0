"""make bench: gather the sections' figures (.kerai/bench/*.json, written by each section) into
.kerai/bench/results.json, with the date and the machine, and draw them on one HTML page
(.kerai/bench/index.html: inline SVG, no dependencies).

    python3 report.py BENCH_DIR
"""
import datetime
import html
import json
import os
import platform
import sys

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpu": cpu, "system": platform.platform()}


def line_chart(title, series, x_label, y_label, w=640, h=320, pad=50):
    """series: [(name, [(x, y), ...])]"""
    points = [p for _, s in series for p in s]
    if not points:
        return ""
    x_max = max(p[0] for p in points) or 1
    y_max = max(p[1] for p in points) or 1
    sx = lambda x: pad + (w - 2 * pad) * x / x_max
    sy = lambda y: h - pad - (h - 2 * pad) * y / y_max
    out = [f'<svg width="{w}" height="{h}" xmlns="http://www.w3.org/2000/svg" font-size="12">',
           f'<text x="{w / 2}" y="18" text-anchor="middle" font-weight="bold">{html.escape(title)}</text>',
           f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/>',
           f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="black"/>',
           f'<text x="{w / 2}" y="{h - 12}" text-anchor="middle">{html.escape(x_label)} (0 to {x_max:.0f})</text>',
           f'<text x="14" y="{h / 2}" transform="rotate(-90 14 {h / 2})" text-anchor="middle">'
           f'{html.escape(y_label)} (0 to {y_max:.0f})</text>']
    for i, (name, s) in enumerate(series):
        c = COLOURS[i % len(COLOURS)]
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in s)
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{path}"/>')
        out.append(f'<text x="{w - pad + 4}" y="{pad + 16 * i}" fill="{c}">{html.escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def bar_chart(title, bars, unit, w=640, pad=50, row=28):
    """bars: [(name, value)]"""
    if not bars:
        return ""
    h = pad + row * len(bars) + 10
    v_max = max(v for _, v in bars) or 1
    out = [f'<svg width="{w}" height="{h}" xmlns="http://www.w3.org/2000/svg" font-size="12">',
           f'<text x="{w / 2}" y="18" text-anchor="middle" font-weight="bold">{html.escape(title)}</text>']
    for i, (name, v) in enumerate(bars):
        y = pad + row * i
        bw = (w - 2 * pad - 120) * v / v_max
        out.append(f'<text x="{pad + 110}" y="{y + 15}" text-anchor="end">{html.escape(name)}</text>')
        out.append(f'<rect x="{pad + 120}" y="{y}" width="{bw:.1f}" height="{row - 8}" fill="{COLOURS[i % len(COLOURS)]}"/>')
        out.append(f'<text x="{pad + 124 + bw:.1f}" y="{y + 15}">{v:,.1f} {html.escape(unit)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def crawl_section(c):
    runs = c.get("runs", [])
    parts = [f"<h2>Crawl: a generated {c.get('pages')}-page site, nginx on loopback, "
             f"{c.get('concurrency')} requests in flight</h2><p>measured {html.escape(c['measured_at'])}</p>",
             "<table><tr><th>crawler</th><th>what it does</th><th>pages</th><th>seconds</th>"
             "<th>pages/s</th><th>peak RSS (MiB)</th></tr>"]
    for r in runs:
        parts.append(f"<tr><td>{html.escape(r['crawler'])}</td><td>{html.escape(r.get('what', ''))}</td>"
                     f"<td>{r['pages']:.0f}</td><td>{r['seconds']:.1f}</td><td>{r['pages_per_second']:.0f}</td>"
                     f"<td>{r['peak_rss_mib']:.0f}</td></tr>")
    parts.append("</table>")
    parts.append(line_chart("Page requests answered over time",
                            [(r["crawler"], r.get("page_requests_over_time", [])) for r in runs],
                            "seconds", "page requests"))
    parts.append(bar_chart("Pages per second", [(r["crawler"], r["pages_per_second"]) for r in runs], "pages/s"))
    parts.append(bar_chart("Peak resident memory", [(r["crawler"], r["peak_rss_mib"]) for r in runs], "MiB"))
    kerai = next((r for r in runs if r["crawler"] == "kerai"), None)
    if kerai and "recrawl_share" in kerai:
        parts.append(f"<p>Unchanged re-crawl: {kerai['recrawl_seconds']:.1f} s, "
                     f"{100 * kerai['recrawl_share']:.1f} % of the first crawl's time; "
                     f"{kerai['recrawl_304']} of {kerai['recrawl_page_requests']} page requests answered 304.</p>")
    return "\n".join(parts)


def number(v, spec):
    """v formatted by spec, or a dash when the figure is missing (a step that failed)."""
    return "—" if v is None else format(v, spec)


def grouped_bar_chart(title, groups, series, values, fmt, unit="", w=640, pad=50, bar=16):
    """Horizontal bars, one group per entry of groups, one bar per series in each;
    values[(group, series)] is the bar's length (missing: no bar)."""
    group_h = bar * len(series) + 12
    h = pad + group_h * len(groups) + 16 * len(series) + 10
    v_max = max((v for v in values.values() if v is not None), default=0) or 1
    out = [f'<svg width="{w}" height="{h}" xmlns="http://www.w3.org/2000/svg" font-size="12">',
           f'<text x="{w / 2}" y="18" text-anchor="middle" font-weight="bold">{html.escape(title)}</text>']
    for g, group in enumerate(groups):
        y0 = pad + group_h * g
        out.append(f'<text x="{pad + 110}" y="{y0 + group_h / 2}" text-anchor="end">{html.escape(group)}</text>')
        for i, name in enumerate(series):
            v = values.get((group, name))
            if v is None:
                continue
            y = y0 + bar * i
            bw = (w - 2 * pad - 170) * v / v_max
            out.append(f'<rect x="{pad + 120}" y="{y}" width="{bw:.1f}" height="{bar - 3}" '
                       f'fill="{COLOURS[i % len(COLOURS)]}"/>')
            out.append(f'<text x="{pad + 124 + bw:.1f}" y="{y + bar - 5}">{format(v, fmt)}{html.escape(unit)}</text>')
    legend_y = pad + group_h * len(groups) + 4
    for i, name in enumerate(series):
        out.append(f'<text x="{pad + 120}" y="{legend_y + 16 * i}" fill="{COLOURS[i % len(COLOURS)]}">'
                   f'&#9632; {html.escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def histogram_chart(title, values, width, bins, goal=None, w=640, h=220, pad=45):
    """Counts of values in bins of `width` from 0; the last bin also holds everything beyond it.
    A dashed line marks the goal, when there is one."""
    counts = [0] * bins
    for v in values:
        counts[min(int(v // width), bins - 1)] += 1
    c_max = max(counts) or 1
    bw = (w - 2 * pad) / bins
    x = lambda ms: pad + bw * ms / width
    y = lambda c: h - pad - (h - 2 * pad) * c / c_max
    out = [f'<svg width="{w}" height="{h}" xmlns="http://www.w3.org/2000/svg" font-size="12">',
           f'<text x="{w / 2}" y="18" text-anchor="middle" font-weight="bold">{html.escape(title)}</text>',
           f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/>',
           f'<text x="14" y="{h / 2}" transform="rotate(-90 14 {h / 2})" text-anchor="middle">'
           f'queries (0 to {c_max})</text>']
    for i, c in enumerate(counts):
        out.append(f'<rect x="{x(i * width) + 1:.1f}" y="{y(c):.1f}" width="{bw - 2:.1f}" '
                   f'height="{h - pad - y(c):.1f}" fill="{COLOURS[0]}"/>')
    for i in range(0, bins, 5):
        out.append(f'<text x="{x(i * width):.1f}" y="{h - pad + 14}" text-anchor="middle">{i * width:g}</text>')
    out.append(f'<text x="{x((bins - 0.5) * width):.1f}" y="{h - pad + 14}" text-anchor="middle">'
               f'&#8805;{(bins - 1) * width:g}</text>')
    out.append(f'<text x="{w / 2}" y="{h - 8}" text-anchor="middle">ms per query</text>')
    if goal is not None and goal < bins * width:
        out.append(f'<line x1="{x(goal):.1f}" y1="{pad - 10}" x2="{x(goal):.1f}" y2="{h - pad}" '
                   f'stroke="{COLOURS[1]}" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{x(goal) + 4:.1f}" y="{pad - 2}" fill="{COLOURS[1]}">goal: p95 &#8804; {goal:g} ms</text>')
    out.append("</svg>")
    return "\n".join(out)


def score_cell(score, best):
    """F1 (P, R), the F1 in bold when it is the row's best."""
    if not score:
        return "<td>—</td>"
    f1 = f"<b>{score['f1']:.3f}</b>" if score["f1"] == best else f"{score['f1']:.3f}"
    return f"<td>{f1} ({score['precision']:.3f}, {score['recall']:.3f})</td>"


def extraction_table(sets, extractors):
    parts = ["<table><tr><th>set</th><th></th>"
             + "".join(f"<th>{html.escape(k)}</th>" for k in extractors) + "</tr>"]
    for s in sets.values():
        by = s["extractors"]
        keys = list(by[extractors[0]]["scores"])
        title = f"<td rowspan=\"{len(keys) + 1}\">{html.escape(s['title'])}</td>"
        for i, key in enumerate(keys):
            scores = [by[k]["scores"].get(key) for k in extractors]
            best = max((c["f1"] for c in scores if c), default=None)
            row = "".join(score_cell(c, best) for c in scores)
            parts.append(f"<tr>{title if i == 0 else ''}<td>{html.escape(key)}</td>{row}</tr>")
        parts.append("<tr><td>seconds</td>" + "".join(f"<td>{by[k]['seconds']:.2f}</td>" for k in extractors) + "</tr>")
    parts.append("</table>")
    return "\n".join(parts)


SET_NAMES = {"aeb": "AEB", "readability": "Readability", "wcxb": "WCXB dev"}


def extraction_section(e):
    sets, versions = e["sets"], e.get("versions", {})
    names = [SET_NAMES.get(k, k) for k in sets]
    extractors = list(next(iter(sets.values()))["extractors"])
    named = lambda k: f"{k} {versions[k]}" if k in versions else k
    parts = ["<h2>HTML main-content extraction beside the peers, same run</h2>",
             f"<p>measured {html.escape(e['measured_at'])}; "
             + ", ".join(html.escape(named(k)) for k in extractors)
             + "; each cell F1 (precision, recall) by the set's own scorer, the best F1 in bold; "
             "seconds of extraction on one core</p>",
             extraction_table(sets, extractors)]
    f1 = {(SET_NAMES.get(n, n), k): s["extractors"][k]["scores"]["all"]["f1"]
          for n, s in sets.items() for k in extractors}
    parts.append(grouped_bar_chart("F1 per set (all pages)", names, extractors, f1, ".3f"))
    wcxb = sets.get("wcxb")
    if wcxb:
        types = [t for t in wcxb["extractors"][extractors[0]]["scores"] if t != "all"]
        by_type = {(t, k): wcxb["extractors"][k]["scores"].get(t, {}).get("f1")
                   for t in types for k in extractors}
        parts.append(grouped_bar_chart("WCXB F1 per page type", types, extractors, by_type, ".3f"))
    secs = {(SET_NAMES.get(n, n), k): s["extractors"][k]["seconds"] for n, s in sets.items() for k in extractors}
    parts.append(grouped_bar_chart("Extraction time per set (one core)", names, extractors, secs, ",.2f", " s"))
    return "\n".join(parts)


SEARCH_MODES = {"fts": "full text only", "vector": "vector only (HNSW)",
                "hybrid": "hybrid, the database embeds the query",
                "hybrid (vector given)": "hybrid, query vector given",
                "hybrid, filtered": "hybrid with filters (language, since 90 days)"}
# Issue 15's latency goals, p95 in ms.
SEARCH_GOALS = {"hybrid (vector given)": 50, "hybrid": 80, "fts": 40}
HISTOGRAM_BINS = 20


def histogram_width(modes):
    """A round bin width that shows every mode's p95 and every goal within the bins."""
    top = max([m["p95_ms"] or 0 for m in modes] + list(SEARCH_GOALS.values())) * 1.25
    return next((s for s in (1, 2, 2.5, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)
                 if s * HISTOGRAM_BINS >= top), 2500)


def latency_part(lat):
    modes = lat["modes"]
    parts = [f"<h3>Latency of kerai.search(query, 10) at {lat['chunks']:,} chunks</h3>"
             f"<p>measured {html.escape(lat['measured_at'])}; {modes[0]['queries'] if modes else 0} queries per mode</p>",
             "<table><tr><th>mode</th><th>queries</th><th>p50 (ms)</th><th>p95 (ms)</th>"
             "<th>goal: p95 (ms)</th><th>met</th></tr>"]
    for m in modes:
        goal = SEARCH_GOALS.get(m["mode"])
        met = "" if goal is None or m["p95_ms"] is None else ("yes" if m["p95_ms"] <= goal else "no")
        parts.append(f"<tr><td>{html.escape(SEARCH_MODES.get(m['mode'], m['mode']))}</td><td>{m['queries']}</td>"
                     f"<td>{number(m['p50_ms'], '.1f')}</td><td>{number(m['p95_ms'], '.1f')}</td>"
                     f"<td>{'' if goal is None else f'&#8804; {goal}'}</td><td>{met}</td></tr>")
    parts.append("</table>")
    width = histogram_width(modes)
    for m in modes:
        parts.append(histogram_chart(f"{SEARCH_MODES.get(m['mode'], m['mode'])}: p50 {number(m['p50_ms'], '.1f')} ms, "
                                     f"p95 {number(m['p95_ms'], '.1f')} ms",
                                     m.get("ms", []), width, HISTOGRAM_BINS, SEARCH_GOALS.get(m["mode"])))
    return "\n".join(parts)


def quality_part(q):
    ndcg, emb, ans = q.get("ndcg10", {}), q.get("embedding", {}), q.get("answers", {})
    rows = [("full text only (fts)", "fts"), ("vector only", "vector"),
            ("hybrid (reciprocal-rank fusion)", "hybrid"), ("baseline: plain BM25, same run", "bm25")]
    parts = [f"<h3>Quality on BEIR SciFact ({number(q.get('chunks'), ',')} chunks, 300 queries)</h3>"
             f"<p>measured {html.escape(q['measured_at'])}</p>",
             "<table><tr><th>mode</th><th>nDCG@10</th></tr>"]
    parts += [f"<tr><td>{label}</td><td>{number(ndcg.get(key), '.4f')}</td></tr>" for label, key in rows]
    parts.append("</table>")
    parts.append(f"<p>Embedding the chunks with the local model ({html.escape(str(emb.get('model', '')))}): "
                 f"{number(emb.get('seconds'), ',')} s, {number(emb.get('chunks_per_second'), ',.1f')} chunks/s. "
                 f"Baseline, the float32 model on the same chunks in the same run: "
                 f"{number(emb.get('float32_seconds'), ',')} s, "
                 f"{number(emb.get('float32_chunks_per_second'), ',.1f')} chunks/s; nDCG@10 vector "
                 f"{number(q.get('ndcg10_float32', {}).get('vector'), '.4f')}, hybrid "
                 f"{number(q.get('ndcg10_float32', {}).get('hybrid'), '.4f')}.</p>")
    parts.append(f"<p>kerai.answer (extractive), {number(ans.get('queries'), ',')} queries: first cited passage "
                 f"relevant {number(ans.get('first_cited_relevant'), '.3f')} (goal &#8805; 0.75); first sentence "
                 f"a heading or navigation fragment {number(ans.get('heading_or_navigation'), '.3f')} (goal 0).</p>")
    return "\n".join(parts)


def search_section(s):
    parts = ["<h2>Retrieval: kerai.search</h2>"]
    if "latency" in s:
        parts.append(latency_part(s["latency"]))
    if "quality" in s:
        parts.append(quality_part(s["quality"]))
    return "\n".join(parts)


SECTIONS = {"crawl": crawl_section, "extraction": extraction_section, "search": search_section}


def main():
    bench = sys.argv[1]
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "machine": machine(), "sections": {}}
    for name in sorted(os.listdir(bench)):
        if name.endswith(".json") and name != "results.json":
            path = os.path.join(bench, name)
            with open(path) as f:
                data = json.load(f)
            # A section not run this time keeps its last figures, dated.
            data["measured_at"] = datetime.datetime.fromtimestamp(
                os.path.getmtime(path), datetime.timezone.utc).isoformat(timespec="seconds")
            results["sections"][name[:-5]] = data
    with open(os.path.join(bench, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    m = results["machine"]
    body = [f"<h1>kerai benchmarks</h1><p>{html.escape(results['date'])}; {m['cpus']} CPUs "
            f"({html.escape(m['cpu'])}); {html.escape(m['system'])}</p>"]
    for name, data in results["sections"].items():
        body.append(SECTIONS.get(name, lambda d: f"<h2>{html.escape(name)}</h2><pre>"
                                 f"{html.escape(json.dumps(d, indent=2))}</pre>")(data))
    page = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>kerai benchmarks</title>"
            "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:0.2em 0.6em}</style>"
            "</head><body>" + "\n".join(body) + "</body></html>")
    with open(os.path.join(bench, "index.html"), "w") as f:
        f.write(page)
    print(f"figures: {os.path.join(bench, 'results.json')}; page: {os.path.join(bench, 'index.html')}")


if __name__ == "__main__":
    main()
