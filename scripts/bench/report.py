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


SECTIONS = {"crawl": crawl_section}


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
