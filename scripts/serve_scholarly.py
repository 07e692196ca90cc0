#!/usr/bin/env python3
"""Offline stand-ins for the scholarly services `kerai crawl` asks, for `make demo`: CrossRef,
Unpaywall, Semantic Scholar, arXiv, the Internet Archive and a concept search, all on one local
port at /crossref, /unpaywall, /semantic_scholar, /arxiv, /internet_archive and /concept.

They answer in the real services' formats -- the recorded samples in
crates/kerai-core/tests/fixtures/scholarly/ are the templates, their fields replaced by the
catalogue's -- for the works of a catalogue (examples/scholarly/works.json); anything else gets
each service's own not-found answer. `__SITE__` in the catalogue is the example site's base URL,
where the open copies are served. Unpaywall refuses requests without `email=`, as it does.

    serve_scholarly.py CATALOGUE PORT --site http://127.0.0.1:28880 [--pidfile FILE]
"""
import argparse
import copy
import hashlib
import http.server
import json
import os
import re
import sys
import urllib.parse
from xml.sax.saxutils import escape

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
FIXTURES = os.path.join(ROOT, "crates", "kerai-core", "tests", "fixtures", "scholarly")
PAPERS = os.path.join(ROOT, "examples", "site", "papers")


def fixture(path):
    with open(os.path.join(FIXTURES, path)) as f:
        return json.load(f) if path.endswith(".json") else f.read()


T = {
    "crossref_work": fixture("crossref/work_10.1016_j.jmp.2020.102447.json"),
    "crossref_search": fixture("crossref/search_helmholtz_no_match.json"),
    "unpaywall": fixture("unpaywall/10.1016_j.jmp.2020.102447.json"),
    "unpaywall_404": fixture("unpaywall/error_404_invalid_doi.json"),
    "unpaywall_422": fixture("unpaywall/error_422_no_email.json"),
    "s2_paper": fixture("semantic_scholar/paper_DOI_10.1016_j.jmp.2020.102447.json"),
    "s2_not_found": fixture("semantic_scholar/error_not_found.json"),
    "ia_search": fixture("internet_archive/advancedsearch_helmholtz_optik.json"),
    "ia_metadata": fixture("internet_archive/metadata_handbuchderphysi00helm.json"),
    "arxiv_empty": fixture("arxiv/search_empty.xml"),
}


def words(s):
    return [w.lower() for w in re.split(r"[^\w]+", s or "") if w]


def relevance(work, query):
    q = words(query)
    title = words(work["title"])
    families = [w for _, f in work.get("authors", []) for w in words(f)]
    t = sum(1 for w in q if w in title)
    a = sum(1 for w in q if w in families)
    if t + a == 0:
        return 0
    return t + 2 * a + (1 if str(work.get("year")) in q else 0)


def search(works, query, limit, keep):
    hits = [(relevance(w, query), i, w) for i, w in enumerate(works) if keep(w)]
    hits = [h for h in hits if h[0] > 0]
    hits.sort(key=lambda h: (-h[0], h[1]))
    return [w for _, _, w in hits[:limit]]


def oa(work):
    return bool(work.get("locations")) or bool(work.get("arxiv_pdf"))


def crossref_message(w, score=None):
    m = copy.deepcopy(T["crossref_work"]["message"])
    m["DOI"] = w["doi"]
    m["title"] = [w["title"]]
    m["author"] = [{"given": g, "family": f, "sequence": "first" if i == 0 else "additional", "affiliation": []}
                   for i, (g, f) in enumerate(w.get("authors", []))]
    m["container-title"] = [w.get("container") or ""]
    m["short-container-title"] = m["container-title"]
    for k in ("issued", "published", "published-print"):
        m[k] = {"date-parts": [[w["year"]]]}
    m["URL"] = "http://dx.doi.org/" + w["doi"]
    m["resource"] = {"primary": {"URL": "https://publisher.example.org/" + w["doi"]}}
    m.pop("abstract", None)
    m.pop("assertion", None)
    # CrossRef lists text-mining terms only; open copies come from Unpaywall.
    m["license"] = [lic for lic in m["license"] if lic["content-version"] == "tdm"]
    m["score"] = score if score is not None else 1
    return m


def unpaywall(w):
    v = copy.deepcopy(T["unpaywall"])
    locs = []
    for i, l in enumerate(w.get("locations", [])):
        locs.append({"endpoint_id": None, "evidence": "open (via page says license)",
                     "host_type": l.get("host_type", "publisher"), "is_best": i == 0,
                     "license": l.get("license"), "oa_date": "%d-01-01" % w["year"], "pmh_id": None,
                     "repository_institution": None, "updated": "2025-11-18T08:41:10.622540",
                     "url": l.get("pdf") or l.get("landing"),
                     "url_for_landing_page": l.get("landing") or l.get("pdf"),
                     "url_for_pdf": l.get("pdf"), "version": l.get("version", "publishedVersion")})
    v.update({"doi": w["doi"], "doi_url": "https://doi.org/" + w["doi"], "title": w["title"], "year": w["year"],
              "journal_name": w.get("container"), "is_oa": bool(locs),
              "oa_status": "gold" if locs else "closed", "has_repository_copy": False,
              "best_oa_location": locs[0] if locs else None, "first_oa_location": locs[0] if locs else None,
              "oa_locations": locs, "published_date": "%d-01-01" % w["year"],
              "z_authors": [{"family": f, "given": g, "sequence": "first" if i == 0 else "additional"}
                            for i, (g, f) in enumerate(w.get("authors", []))]})
    return v


def s2_paper(w):
    v = copy.deepcopy(T["s2_paper"])
    key = w.get("doi") or w.get("arxiv") or w["title"]
    digest = hashlib.sha1(key.encode()).hexdigest()
    ids = {"CorpusId": int(digest[:7], 16)}
    if w.get("doi"):
        ids["DOI"] = w["doi"]
    if w.get("arxiv"):
        ids["ArXiv"] = w["arxiv"]
    v.update({"paperId": digest, "externalIds": ids, "title": w["title"], "abstract": w.get("abstract"),
              "year": w["year"], "venue": w.get("container") or "",
              "authors": [{"authorId": str(int(hashlib.sha1(f.encode()).hexdigest()[:6], 16)), "name": "%s %s" % (g, f)}
                          for g, f in w.get("authors", [])],
              "isOpenAccess": oa(w),
              "openAccessPdf": {"url": "", "status": None, "license": None,
                                "disclaimer": "Notice: see Unpaywall for open copies."}})
    return v


def arxiv_feed(w):
    authors = "".join("    <author>\n      <name>%s %s</name>\n    </author>\n" % (escape(g), escape(f))
                      for g, f in w.get("authors", []))
    return """<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">
  <id>https://arxiv.org/api/demo{id}</id>
  <title>arXiv Query: search_query=&amp;id_list={id}&amp;start=0&amp;max_results=10</title>
  <updated>2025-11-12T09:30:11Z</updated>
  <opensearch:itemsPerPage>10</opensearch:itemsPerPage>
  <opensearch:totalResults>1</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <entry>
    <id>https://arxiv.org/abs/{id}v3</id>
    <title>{title}</title>
    <updated>{year}-07-12T15:44:08Z</updated>
    <link href="https://arxiv.org/abs/{id}v3" rel="alternate" type="text/html"/>
    <link href="{pdf}" rel="related" type="application/pdf" title="pdf"/>
    <summary>{summary}</summary>
    <published>{year}-07-27T17:45:24Z</published>
{authors}  </entry>
</feed>
""".format(id=w["arxiv"], title=escape(w["title"]), year=w["year"], pdf=escape(w["arxiv_pdf"]),
           summary=escape(w.get("abstract") or ""), authors=authors)


def ia_metadata(w):
    v = copy.deepcopy(T["ia_metadata"])
    ia = w["ia"]
    size = os.path.getsize(os.path.join(PAPERS, ia["file"]))
    v["dir"] = "/11/items/" + ia["identifier"]
    v["files"] = [{"name": ia["file"], "source": "derivative", "format": "DjVuTXT", "size": str(size),
                   "md5": hashlib.md5(ia["file"].encode()).hexdigest()}]
    v["files_count"] = 1
    m = v["metadata"]
    m.update({"identifier": ia["identifier"], "title": w["title"], "year": str(w["year"]), "date": str(w["year"]),
              "creator": ["%s, %s" % (f, g) for g, f in w.get("authors", [])]})
    if not ia.get("not_in_copyright"):
        m.pop("possible-copyright-status", None)
    return v


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "kerai-demo-scholarly/1.0"

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, body, ctype="application/json"):
        if not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(u.path)
        q = {k: v[0] for k, v in urllib.parse.parse_qs(u.query).items()}
        works = self.server.works
        by_doi = {w["doi"].lower(): w for w in works if w.get("doi")}
        limit = lambda k: int(q.get(k, "5"))
        if path == "/robots.txt":
            return self.reply(200, "User-agent: *\nAllow: /\n", "text/plain")
        if path == "/crossref/works":
            hits = search(works, q.get("query.bibliographic", ""), limit("rows"), lambda w: "doi" in w)
            v = copy.deepcopy(T["crossref_search"])
            v["message"].update({"items": [crossref_message(w, 10.0) for w in hits], "total-results": len(hits),
                                 "items-per-page": len(hits)})
            return self.reply(200, v)
        if path.startswith("/crossref/works/"):
            w = by_doi.get(path[len("/crossref/works/"):].lower())
            if not w:
                return self.reply(404, "Resource not found.", "text/plain")
            v = copy.deepcopy(T["crossref_work"])
            v["message"] = crossref_message(w)
            return self.reply(200, v)
        if path.startswith("/unpaywall/v2/"):
            if not q.get("email"):
                return self.reply(422, T["unpaywall_422"])
            doi = path[len("/unpaywall/v2/"):]
            w = by_doi.get(doi.lower())
            if not w:
                v = dict(T["unpaywall_404"], message="'%s' is an invalid doi. See https://doi.org/%s" % (doi, doi))
                return self.reply(404, v)
            return self.reply(200, unpaywall(w))
        if path == "/semantic_scholar/graph/v1/paper/search":
            hits = search(works, q.get("query", ""), limit("limit"), lambda w: "ia" not in w)
            if not hits:
                return self.reply(200, {"total": 0, "offset": 0})
            return self.reply(200, {"total": len(hits), "offset": 0, "data": [s2_paper(w) for w in hits]})
        if path.startswith("/semantic_scholar/graph/v1/paper/"):
            pid = path[len("/semantic_scholar/graph/v1/paper/"):]
            w = None
            if pid.startswith("DOI:"):
                w = by_doi.get(pid[4:].lower())
            elif pid.startswith("ARXIV:"):
                w = next((x for x in works if x.get("arxiv") == pid[6:]), None)
            if not w:
                return self.reply(404, dict(T["s2_not_found"], error="Paper with id %s not found" % pid))
            return self.reply(200, s2_paper(w))
        if path == "/arxiv/api/query":
            w = next((x for x in works if x.get("arxiv") and x["arxiv"] == q.get("id_list")), None)
            return self.reply(200, arxiv_feed(w) if w else T["arxiv_empty"], "application/atom+xml")
        if path == "/internet_archive/advancedsearch.php":
            hits = search(works, q.get("q", ""), limit("rows"), lambda w: "ia" in w)
            v = copy.deepcopy(T["ia_search"])
            v["responseHeader"]["params"]["qin"] = q.get("q", "")
            v["response"].update({"numFound": len(hits), "docs": [
                {"identifier": w["ia"]["identifier"], "title": w["title"], "mediatype": "texts", "year": w["year"],
                 "creator": ["%s, %s" % (f, g) for g, f in w.get("authors", [])]} for w in hits]})
            return self.reply(200, v)
        if path.startswith("/internet_archive/metadata/"):
            ident = path[len("/internet_archive/metadata/"):]
            w = next((x for x in works if x.get("ia", {}).get("identifier") == ident), None)
            return self.reply(200, ia_metadata(w) if w else {})
        if path.startswith("/internet_archive/download/"):
            ident, _, name = path[len("/internet_archive/download/"):].partition("/")
            w = next((x for x in works if x.get("ia", {}).get("identifier") == ident and x["ia"]["file"] == name), None)
            if not w:
                return self.reply(404, "Item not found", "text/plain")
            with open(os.path.join(PAPERS, name), "rb") as f:
                return self.reply(200, f.read(), "text/plain; charset=utf-8")
        if path == "/concept":
            term = q.get("q", "").lower()
            results = next((r for t, r in self.server.concepts.items() if t in term), [])
            return self.reply(200, {"results": results})
        return self.reply(404, "no such endpoint", "text/plain")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("catalogue")
    ap.add_argument("port", type=int)
    ap.add_argument("--site", required=True, help="base URL of the example site (replaces __SITE__)")
    ap.add_argument("--pidfile")
    args = ap.parse_args()
    with open(args.catalogue) as f:
        text = f.read().replace("__SITE__", args.site.rstrip("/"))
    catalogue = json.loads(text)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.works = catalogue["works"]
    server.concepts = catalogue.get("concepts", {})
    if args.pidfile:
        with open(args.pidfile, "w") as f:
            f.write(str(os.getpid()))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
