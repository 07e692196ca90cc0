//! Near-linear time and bounded memory on adversarial shapes, for every text path a SQL
//! function or the fetcher feeds untrusted input: markdown parsing, HTML extraction, chunking,
//! the sentence splitter, the citation detector, the bibliography parser, and the entities and
//! claims found in each chunk.
//!
//! Each path runs on a shape of size n and of size 8n. The test fails when the thread's CPU
//! time grows more than 12× (linear is 8×; quadratic would be 64×), or when the memory held at
//! the peak exceeds [`MEMORY_MULTIPLE`] times the input. CPU time of the measuring thread (best
//! of three) keeps the ratio steady on a loaded machine; a global counting allocator gives the
//! peak, with one measurement at a time.

use kerai_core::retrieval::chunk::{self, sentences, ChunkOptions, ChunkStrategy};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Duration;

#[path = "support/cpu_clock.rs"]
mod cpu_clock;
use cpu_clock::thread_cpu;

/// Peak memory held while a path runs, at most this many times its input (plus 4 MiB).
const MEMORY_MULTIPLE: usize = 48;

struct Counting;
static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = HELD.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        HELD.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                grew(new - l.size());
            } else {
                HELD.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// One measurement at a time: the allocator counts every thread.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Best-of-three CPU time of `path` on `input`, and the peak memory it held above the start.
fn measure(path: &dyn Fn(&str), input: &str) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut peak = 0;
    for _ in 0..3 {
        let base = HELD.load(Relaxed);
        PEAK.store(base, Relaxed);
        let t0 = thread_cpu();
        path(input);
        best = best.min(thread_cpu() - t0);
        peak = peak.max(PEAK.load(Relaxed).saturating_sub(base));
    }
    (best, peak)
}

/// A path: takes text (or HTML, for `html`) and does all of its work.
type Path = Box<dyn Fn(&str)>;

/// The paths, by name.
fn paths() -> Vec<(&'static str, Path)> {
    vec![
        (
            "markdown",
            Box::new(|s: &str| {
                kerai_core::markdown::parse(s, |_| {});
            }),
        ),
        (
            "html",
            Box::new(|s: &str| {
                kerai_core::convert::html::to_markdown(s, "https://shape.example/");
            }),
        ),
        (
            "chunker",
            Box::new(|s: &str| {
                let opts = ChunkOptions {
                    target_tokens: 512,
                    overlap_tokens: 64,
                    strategy: ChunkStrategy::Section,
                };
                let words = |t: &str| t.split_whitespace().count();
                chunk::chunk_document(&chunk::blocks_from_markdown(s), &opts, &words);
            }),
        ),
        (
            "sentences",
            Box::new(|s: &str| {
                sentences::sentences(s);
            }),
        ),
        (
            "citations",
            Box::new(|s: &str| {
                kerai_core::citations::detect_citations(s);
            }),
        ),
        (
            "references",
            Box::new(|s: &str| {
                for entry in kerai_core::references::split_bibliography(s) {
                    kerai_core::references::parse_reference(&entry);
                }
            }),
        ),
        (
            "facts",
            Box::new(|s: &str| {
                kerai_core::facts::entities(s);
                kerai_core::facts::claims_from_text(s);
            }),
        ),
    ]
}

/// A shape at size `n`: as text (markdown) and as HTML.
struct Shape {
    name: &'static str,
    /// Size of the small input; the large one is 8×.
    n: usize,
    text: fn(usize) -> String,
    html: fn(usize) -> String,
}

fn repeat_to(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes.div_ceil(unit.len()))
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "an unbroken run of words",
        n: 128 << 10,
        text: |n| repeat_to("word ", n),
        html: |n| format!("<p>{}</p>", repeat_to("word ", n)),
    },
    Shape {
        name: "a line with no spaces",
        n: 128 << 10,
        text: |n| "a".repeat(n),
        html: |n| format!("<p>{}</p>", "a".repeat(n)),
    },
    Shape {
        name: "list items",
        n: 12_500,
        text: |n| (0..n).map(|i| format!("- item {i}\n")).collect(),
        html: |n| {
            format!(
                "<ul>{}</ul>",
                (0..n)
                    .map(|i| format!("<li>item {i}</li>"))
                    .collect::<String>()
            )
        },
    },
    Shape {
        name: "table cells",
        n: 12_500,
        text: |n| {
            let row = |c: &str| format!("|{}\n", format!(" {c} |").repeat(10));
            let mut s = row("h");
            s.push_str(&format!("|{}\n", " --- |".repeat(10)));
            for _ in 0..n / 10 {
                s.push_str(&row("cell"));
            }
            s
        },
        html: |n| {
            let row = format!("<tr>{}</tr>", "<td>cell</td>".repeat(10));
            format!("<table>{}</table>", row.repeat(n / 10))
        },
    },
    Shape {
        name: "deep nesting",
        n: 2_000,
        text: |n| format!("{}deep\n", "> ".repeat(n)),
        html: |n| format!("{}deep{}", "<div>".repeat(n), "</div>".repeat(n)),
    },
    // Markup the HTML5 tree builder repairs (the misnested `</b>` first) sends a page to
    // html5ever, whose work grows with the nesting depth and with the list of open formatting
    // elements; these two must stay linear too.
    Shape {
        name: "deep nesting that needs repairs",
        n: 2_000,
        text: |n| format!("**a *b** c*\n{}deep\n", "> ".repeat(n)),
        html: |n| {
            format!(
                "<b>a<i>b</b>c</i>{}deep{}",
                "<div>".repeat(n),
                "</div>".repeat(n)
            )
        },
    },
    Shape {
        name: "formatting elements left open",
        n: 2_000,
        text: |n| "**a *b** c* ".repeat(n),
        html: |n| {
            let open: String = (0..n).map(|i| format!("<b class=c{i}><p>x")).collect();
            format!("<b>a<i>b</b>c</i>{open}")
        },
    },
    // The adoption agency moves elements out of a deep subtree: the depth must still count.
    Shape {
        name: "deep nesting moved by the adoption agency",
        n: 8,
        text: |n| format!("{}deep\n", "> ".repeat(490)).repeat(n),
        html: |n| format!("{}<b><div><span></b>", "<div>".repeat(490)).repeat(n),
    },
    Shape {
        name: "runs of brackets, quotes and dots",
        n: 64 << 10,
        text: |n| repeat_to("(((([[[[\"\"''....]]))", n),
        html: |n| format!("<p>{}</p>", repeat_to("(((([[[[&quot;''....]]))", n)),
    },
    // React's streamed rendering, moved into place before parsing: placeholders whose
    // fallbacks never close, each with its segment and script call.
    Shape {
        name: "streamed segments with unclosed fallbacks",
        n: 4_000,
        text: |n| (0..n).map(|i| format!("- part {i}\n")).collect(),
        html: streamed_segments,
    },
    // Every DOI is checked against the links it might continue (a resolver link cut by a line
    // break); with thousands of each that must be a lookup, not a scan.
    Shape {
        name: "links and DOIs, thousands of each",
        n: 64 << 10,
        text: |n| repeat_to("see https://example.org/a and doi:10.1000/xyz123 here. ", n),
        html: |n| {
            format!(
                "<p>{}</p>",
                repeat_to("see https://example.org/a and doi:10.1000/xyz123 here. ", n)
            )
        },
    },
];

fn streamed_segments(n: usize) -> String {
    let holes: String = (0..n)
        .map(|i| format!("<p><!--$?--><template id=\"B:{i}\"></template>wait"))
        .collect();
    let segments: String = (0..n)
        .map(|i| format!("<div hidden id=\"S:{i}\"><p>part {i}</p></div><script>$RC(\"B:{i}\",\"S:{i}\")</script>"))
        .collect();
    format!("{holes}{segments}")
}

fn check_shape(shape: &Shape) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut report = Vec::new();
    for (path, f) in paths() {
        let make = if path == "html" {
            shape.html
        } else {
            shape.text
        };
        let (small, big) = (make(shape.n), make(8 * shape.n));
        // A loaded machine (caches shared with other work) can stretch one pair of
        // measurements: a ratio over the bound is measured again, up to three times, and the
        // best pair kept. Noise passes on a retry; a super-linear path (64× for quadratic)
        // fails every time.
        let mut best: Option<(Duration, Duration, usize, f64)> = None;
        for _ in 0..3 {
            let (t1, _) = measure(&*f, &small);
            let (t8, peak) = measure(&*f, &big);
            // Below a millisecond the clock's granularity decides the ratio: count that as 1 ms.
            let ratio = t8.as_secs_f64() / t1.as_secs_f64().max(1e-3);
            if best.is_none_or(|b| ratio < b.3) {
                best = Some((t1, t8, peak, ratio));
            }
            if ratio <= 12.0 {
                break;
            }
        }
        let (t1, t8, peak, ratio) = best.expect("measured");
        report.push(format!(
            "{path}: {:.1} ms → {:.1} ms ({ratio:.1}×), peak {:.1}× input",
            t1.as_secs_f64() * 1e3,
            t8.as_secs_f64() * 1e3,
            peak as f64 / big.len() as f64
        ));
        assert!(
            ratio <= 12.0,
            "{path} on {} ({} → {} bytes): CPU time grew {ratio:.1}× ({t1:?} → {t8:?})",
            shape.name,
            small.len(),
            big.len()
        );
        assert!(
            peak <= MEMORY_MULTIPLE * big.len() + (4 << 20),
            "{path} on {} ({} bytes): held {peak} bytes at the peak, over {MEMORY_MULTIPLE}× the input",
            shape.name,
            big.len()
        );
    }
    println!("{}:\n  {}", shape.name, report.join("\n  "));
}

#[test]
fn an_unbroken_run_of_words() {
    check_shape(&SHAPES[0]);
}

#[test]
fn a_line_with_no_spaces() {
    check_shape(&SHAPES[1]);
}

#[test]
fn list_items() {
    check_shape(&SHAPES[2]);
}

#[test]
fn table_cells() {
    check_shape(&SHAPES[3]);
}

#[test]
fn deep_nesting() {
    check_shape(&SHAPES[4]);
}

#[test]
fn deep_nesting_that_needs_repairs() {
    check_shape(&SHAPES[5]);
}

#[test]
fn formatting_elements_left_open() {
    check_shape(&SHAPES[6]);
}

#[test]
fn deep_nesting_moved_by_the_adoption_agency() {
    check_shape(&SHAPES[7]);
}

#[test]
fn runs_of_brackets_quotes_and_dots() {
    check_shape(&SHAPES[8]);
}

#[test]
fn streamed_segments_with_unclosed_fallbacks() {
    check_shape(&SHAPES[9]);
}

#[test]
fn links_and_dois_thousands_of_each() {
    check_shape(&SHAPES[10]);
}
