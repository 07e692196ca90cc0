#!/usr/bin/env python3
"""Writes a markdown corpus of about SIZE_MB megabytes for the parse_markdown benchmark, as
COPY text rows (markdown, metadata): the 181 articles of the AEB ground truth as markdown
documents (title, sections every few paragraphs, bullet lists), repeated under distinct URLs.

    markdown_corpus.py SHARED_DIR SIZE_MB > corpus.copy
"""
import json
import sys


def escape(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def article_markdown(title, body, variant):
    paras = [p.strip() for p in body.split("\n") if p.strip()]
    out = [f"# {title} ({variant})", ""]
    for i, p in enumerate(paras):
        if i and i % 6 == 0:
            out += [f"## Part {i // 6}", ""]
        if len(p) < 90 and i % 3 == 1:
            out += [f"- {p}", ""]
        else:
            out += [p, ""]
    return "\n".join(out)


def main():
    shared, size_mb = sys.argv[1], float(sys.argv[2])
    truth = json.load(open(f"{shared}/bench/aeb/ground-truth.json"))
    items = sorted(truth.items())
    written = 0
    variant = 0
    while written < size_mb * 1_000_000:
        for key, v in items:
            body = v["articleBody"]
            title = body.split("\n", 1)[0][:80] or key
            md = article_markdown(title, body, variant)
            meta = json.dumps({"source_url": f"https://bench.example/{variant}/{key}", "source_type": "html"})
            sys.stdout.write(escape(md) + "\t" + escape(meta) + "\n")
            written += len(md.encode())
            if written >= size_mb * 1_000_000:
                break
        variant += 1
    print(f"{written} bytes of markdown", file=sys.stderr)


if __name__ == "__main__":
    main()
