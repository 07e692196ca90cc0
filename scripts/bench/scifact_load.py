#!/usr/bin/env python3
"""SciFact for kerai's search benchmark: the corpus as COPY rows (markdown, metadata) and the
test queries as COPY rows (id, text). Usage: scifact_load.py SCIFACT_DIR corpus|queries"""
import gzip, json, sys

def esc(s):
    return s.replace("\\", "\\\\").replace("\t", " ").replace("\n", "\\n").replace("\r", " ")

d, what = sys.argv[1], sys.argv[2]
if what == "corpus":
    with gzip.open(f"{d}/corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            md = f"# {doc['title'].strip()}\n\n{doc['text'].strip()}\n"
            meta = json.dumps({"source_url": f"scifact:{doc['_id']}", "title": doc["title"].strip(), "language": "en"})
            print(f"{esc(md)}\t{esc(meta)}")
else:
    with open(f"{d}/queries.jsonl", encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            print(f"{esc(q['_id'])}\t{esc(q['text'])}")
