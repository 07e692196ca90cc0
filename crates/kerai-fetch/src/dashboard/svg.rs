//! The report's drawings as inline SVG: bars, a growth line, job outcomes, the citation graph.

use super::Graph;
use crate::output::snippet;
use std::fmt::Write;

/// Colours of citation depths 0, 1, 2, ... (the last repeats).
pub const DEPTH_COLOURS: [&str; 8] = [
    "#2b6cb0", "#2f855a", "#b7791f", "#c53030", "#6b46c1", "#2c7a7b", "#97266d", "#4a5568",
];

/// Job outcomes, in the order of their colours.
pub const OUTCOME_NAMES: [&str; 6] = [
    "new",
    "updated",
    "unchanged",
    "duplicates",
    "errors",
    "skipped",
];

/// Job outcomes' colours: new, updated, unchanged, duplicates, errors, skipped.
pub const OUTCOME_COLOURS: [&str; 6] = [
    "#2f855a", "#2b6cb0", "#a0aec0", "#805ad5", "#c53030", "#d69e2e",
];

pub fn depth_colour(depth: i32) -> &'static str {
    DEPTH_COLOURS[(depth.max(0) as usize).min(DEPTH_COLOURS.len() - 1)]
}

/// Text for HTML and SVG.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Horizontal bars, one per item, longest first as given.
pub fn bars(items: &[(String, i64)], colour: &str) -> String {
    let max = items.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1) as f64;
    let row = 26.0;
    let (label_w, bar_w) = (130.0, 300.0);
    let h = row * items.len() as f64 + 8.0;
    let mut s = format!(
        r#"<svg class="chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img">"#,
        w = label_w + bar_w + 60.0
    );
    for (i, (label, n)) in items.iter().enumerate() {
        let y = 4.0 + row * i as f64;
        let len = (bar_w * *n as f64 / max).max(2.0);
        let _ = write!(
            s,
            r#"<text x="{lx}" y="{ty}" text-anchor="end">{label}</text><rect x="{bx}" y="{y}" width="{len:.1}" height="18" rx="3" fill="{colour}"><title>{label}: {n}</title></rect><text x="{vx:.1}" y="{ty}">{n}</text>"#,
            lx = label_w - 8.0,
            ty = y + 14.0,
            label = escape(&snippet(label, 17)),
            bx = label_w,
            vx = label_w + len + 6.0,
        );
    }
    s.push_str("</svg>");
    s
}

/// The corpus size over time: documents added per bucket, drawn cumulatively.
pub fn growth(points: &[(String, i64)]) -> String {
    let (w, h, pad) = (640.0, 220.0, 40.0);
    let mut total = 0;
    let cumulative: Vec<i64> = points
        .iter()
        .map(|(_, n)| {
            total += n;
            total
        })
        .collect();
    let max = (*cumulative.last().unwrap_or(&1)).max(1) as f64;
    let step = if points.len() > 1 {
        (w - 2.0 * pad) / (points.len() - 1) as f64
    } else {
        0.0
    };
    let xy = |i: usize, v: i64| {
        let x = if points.len() > 1 {
            pad + step * i as f64
        } else {
            w / 2.0
        };
        (x, h - pad - (h - 2.0 * pad) * v as f64 / max)
    };
    let mut s = format!(
        r#"<svg class="chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img"><line x1="{pad}" y1="{b}" x2="{r}" y2="{b}" class="axis"/><line x1="{pad}" y1="{pad}" x2="{pad}" y2="{b}" class="axis"/><text x="{tx}" y="{ty}" text-anchor="end">{max}</text><text x="{tx}" y="{b}" text-anchor="end">0</text>"#,
        b = h - pad,
        r = w - pad,
        tx = pad - 6.0,
        ty = pad + 4.0,
        max = max as i64,
    );
    let line: Vec<String> = cumulative
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let (x, y) = xy(i, *v);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    if line.len() > 1 {
        let _ = write!(
            s,
            r##"<polyline points="{}" fill="none" stroke="#2b6cb0" stroke-width="2.5"/>"##,
            line.join(" ")
        );
    }
    for (i, ((label, added), v)) in points.iter().zip(&cumulative).enumerate() {
        let (x, y) = xy(i, *v);
        let _ = write!(
            s,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="4" fill="#2b6cb0"><title>{label}: +{added}, {v} documents</title></circle>"##,
            label = escape(label)
        );
    }
    if let (Some(first), Some(last)) = (points.first(), points.last()) {
        let _ = write!(
            s,
            r#"<text x="{pad}" y="{y}">{}</text>"#,
            escape(&first.0),
            y = h - pad + 18.0
        );
        if points.len() > 1 {
            let _ = write!(
                s,
                r#"<text x="{x}" y="{y}" text-anchor="end">{}</text>"#,
                escape(&last.0),
                x = w - pad,
                y = h - pad + 18.0
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// One job's outcomes as a stacked bar: new, updated, unchanged, duplicates, errors, skipped.
pub fn outcomes(counts: [i64; 6]) -> String {
    let total: i64 = counts.iter().sum();
    let w = 220.0;
    let mut s = format!(r#"<svg viewBox="0 0 {w} 14" width="{w}" height="14" role="img">"#);
    if total == 0 {
        s.push_str(r##"<rect x="0" y="2" width="220" height="10" fill="#edf2f7"/></svg>"##);
        return s;
    }
    let mut x = 0.0;
    for (i, n) in counts.iter().enumerate() {
        if *n == 0 {
            continue;
        }
        let len = w * *n as f64 / total as f64;
        let _ = write!(
            s,
            r#"<rect x="{x:.1}" y="2" width="{len:.1}" height="10" fill="{}"><title>{} {n}</title></rect>"#,
            OUTCOME_COLOURS[i], OUTCOME_NAMES[i]
        );
        x += len;
    }
    s.push_str("</svg>");
    s
}

/// The citation graph, one column per citation depth (seeds at the left), each document a
/// dot in its depth's colour, each resolved citation a curve from citing to cited document.
pub fn citation_graph(g: &Graph) -> String {
    let max_depth = g.nodes.iter().map(|n| n.depth.max(0)).max().unwrap_or(0) as usize;
    let mut columns: Vec<Vec<usize>> = vec![Vec::new(); max_depth + 1];
    for (i, n) in g.nodes.iter().enumerate() {
        columns[n.depth.max(0) as usize].push(i);
    }
    // Order each column by where its documents' citers sit (fewer crossings).
    let mut y_of = vec![0.0f64; g.nodes.len()];
    let rows = columns.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let (col_w, row_h, pad) = (220.0, 32.0, 34.0);
    let height = pad * 2.0 + row_h * rows as f64;
    for col in columns.iter_mut() {
        let key = |i: usize| {
            let citers: Vec<f64> = g
                .edges
                .iter()
                .filter(|(_, b)| *b == i)
                .map(|(a, _)| y_of[*a])
                .collect();
            if citers.is_empty() {
                f64::MAX
            } else {
                citers.iter().sum::<f64>() / citers.len() as f64
            }
        };
        col.sort_by(|a, b| key(*a).total_cmp(&key(*b)));
        let offset = (rows - col.len()) as f64 * row_h / 2.0;
        for (k, i) in col.iter().enumerate() {
            y_of[*i] = pad + offset + row_h * k as f64 + row_h / 2.0;
        }
    }
    let x_of = |i: usize| pad + 8.0 + col_w * g.nodes[i].depth.max(0) as f64;
    let width = pad * 2.0 + col_w * (max_depth + 1) as f64;
    let mut s = format!(
        r#"<svg class="graph" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img">"#
    );
    for (a, b) in &g.edges {
        let (x1, y1, x2, y2) = (x_of(*a), y_of[*a], x_of(*b), y_of[*b]);
        let bend = if (x2 - x1).abs() < 1.0 { 60.0 } else { 0.0 };
        let _ = write!(
            s,
            r#"<path d="M{x1:.1},{y1:.1} C{c1:.1},{y1:.1} {c2:.1},{y2:.1} {x2:.1},{y2:.1}" class="edge"/>"#,
            c1 = x1 + (x2 - x1) / 2.0 + bend,
            c2 = x1 + (x2 - x1) / 2.0 + bend,
        );
    }
    for (i, n) in g.nodes.iter().enumerate() {
        let _ = write!(
            s,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="6" fill="{c}"><title>{t} (depth {d})</title></circle><text x="{tx:.1}" y="{ty:.1}" class="node">{label}</text>"#,
            x = x_of(i),
            y = y_of[i],
            c = depth_colour(n.depth),
            t = escape(&n.title),
            d = n.depth,
            tx = x_of(i) - 6.0,
            ty = y_of[i] - 9.0,
            label = escape(&snippet(&n.title, 25)),
        );
    }
    for d in 0..=max_depth {
        let _ = write!(
            s,
            r#"<text x="{x:.1}" y="16" class="depth" fill="{c}">depth {d}</text>"#,
            x = pad + col_w * d as f64,
            c = depth_colour(d as i32)
        );
    }
    s.push_str("</svg>");
    s
}
