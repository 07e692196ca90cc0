#!/usr/bin/env python3
"""Draft an extension upgrade script from two install scripts.

    scripts/upgrade_script.py OLD_INSTALL.sql NEW_INSTALL.sql MANUAL.sql [POST.sql] > kerai--A--B.sql

scripts/install.sh runs it for every upgrade to the version being installed that is not frozen
in sql/ (commit the output as sql/kerai--A--B.sql when B is released).

Statements of NEW that OLD does not have, in NEW's order: functions and views that existed
become CREATE OR REPLACE (a function whose result type changed is dropped first), triggers
that existed are dropped first, everything else is copied. A changed CREATE TABLE, or a changed
index or constraint of an old table, cannot be guessed: the script stops and names it, and
MANUAL.sql (hand-written ALTERs, run first) must cover it; list the covered statements' first
lines in MANUAL.sql as `-- covers: <first line>` comments. The result is checked by
tests/tests/upgrade.rs, which compares an updated database with a fresh install. POST.sql
(data backfills that need the new objects) runs last.
"""
import re
import sys


def statements(sql):
    """Split SQL into statements, respecting quotes, dollar quotes and comments."""
    out, cur, i, n = [], [], 0, len(sql)
    while i < n:
        c = sql[i]
        if c == "-" and sql.startswith("--", i):
            j = sql.find("\n", i)
            j = n if j < 0 else j
            cur.append(sql[i:j])
            i = j
        elif c == "/" and sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
            cur.append(sql[i:j])
            i = j
        elif c == "'":
            j = i + 1
            while j < n:
                if sql[j] == "'" and j + 1 < n and sql[j + 1] == "'":
                    j += 2
                elif sql[j] == "'":
                    break
                else:
                    j += 1
            cur.append(sql[i:j + 1])
            i = j + 1
        elif c == "$":
            m = re.match(r"\$[A-Za-z_0-9]*\$", sql[i:])
            if m:
                tag = m.group(0)
                j = sql.find(tag, i + len(tag))
                j = n if j < 0 else j + len(tag)
                cur.append(sql[i:j])
                i = j
            else:
                cur.append(c)
                i += 1
        elif c == ";":
            cur.append(";")
            out.append("".join(cur))
            cur = []
            i += 1
        else:
            cur.append(c)
            i += 1
    rest = "".join(cur)
    if rest.strip():
        out.append(rest)
    return out


def code(stmt):
    """The statement without comments and with normalised spaces (for comparison)."""
    s = re.sub(r"/\*.*?\*/", " ", stmt, flags=re.S)
    s = "\n".join(line for line in s.splitlines() if not line.strip().startswith("--"))
    return re.sub(r"\s+", " ", s).strip()


KINDS = [
    ("function", re.compile(r"^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([\w.\"]+)\s*\(", re.I)),
    ("view", re.compile(r"^CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+([\w.\"]+)", re.I)),
    ("table", re.compile(r"^CREATE\s+TABLE\s+([\w.\"]+)", re.I)),
    ("index", re.compile(r"^CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.\"]+)\s+ON\s+([\w.\"]+)", re.I)),
    ("trigger", re.compile(r"^CREATE\s+TRIGGER\s+([\w\"]+)\s+.*?\sON\s+([\w.\"]+)", re.I | re.S)),
    ("alter", re.compile(r"^ALTER\s+TABLE\s+([\w.\"]+)", re.I)),
    ("insert", re.compile(r"^INSERT\s+INTO\s+([\w.\"]+)", re.I)),
]


def kind_of(c):
    for kind, rx in KINDS:
        m = rx.match(c)
        if m:
            return kind, m
    return None, None


def signature(c):
    """A function's name and argument types (names and defaults dropped), for matching."""
    m = re.match(r"^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([\w.\"]+)\s*\((.*?)\)\s*RETURNS", c, re.I | re.S)
    if not m:
        return None
    args = []
    depth, cur = 0, ""
    for ch in m.group(2):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        args.append(cur)
    types = []
    for a in args:
        a = re.split(r"\s+DEFAULT\s+|\s*=\s*", a.strip(), flags=re.I)[0].strip()
        parts = a.replace('"', "").split()
        if parts and parts[0].upper() in ("IN", "OUT", "INOUT", "VARIADIC"):
            parts = parts[1:]
        # "name type" -> type; a bare type stays.
        types.append(" ".join(parts[1:]) if len(parts) > 1 else " ".join(parts))
    return m.group(1).replace('"', "").lower() + "(" + ",".join(t.lower() for t in types) + ")"


def result_of(c):
    m = re.search(r"\)\s*RETURNS\s+(.*?)\s+(?:LANGUAGE|AS|STRICT|IMMUTABLE|STABLE|VOLATILE|PARALLEL)\b", c, re.I | re.S)
    return re.sub(r"\s+", " ", m.group(1)).strip().lower() if m else None


def main():
    old_path, new_path, manual_path = sys.argv[1:4]
    post = open(sys.argv[4]).read().strip() if len(sys.argv) > 4 else ""
    old = [s for s in statements(open(old_path).read()) if code(s)]
    new = [s for s in statements(open(new_path).read()) if code(s)]
    manual = open(manual_path).read()
    covered = {line.split("-- covers:", 1)[1].strip() for line in manual.splitlines() if "-- covers:" in line}
    old_codes = {code(s) for s in old}
    old_funcs, old_views, old_tables, old_triggers, old_indexes = {}, set(), set(), set(), set()
    for s in old:
        c = code(s)
        kind, m = kind_of(c)
        if kind == "function":
            old_funcs[signature(c)] = result_of(c)
        elif kind == "view":
            old_views.add(m.group(1).lower())
        elif kind == "table":
            old_tables.add(m.group(1).lower())
        elif kind == "trigger":
            old_triggers.add((m.group(1).lower(), m.group(2).lower()))
        elif kind == "index":
            old_indexes.add(m.group(1).lower())
    out = []
    problems = []
    for s in new:
        c = code(s)
        if c in old_codes:
            continue
        first = c[:100]
        kind, m = kind_of(c)
        if kind == "function":
            sig = signature(c)
            if sig in old_funcs:
                if old_funcs[sig] != result_of(c):
                    out.append(f"DROP FUNCTION IF EXISTS {sig};")
                    out.append(s.strip())
                else:
                    # Comments before it (pgrx's `/* <begin connected objects> */` and `-- requires:`
                    # lines, in any order) stay.
                    out.append(re.sub(r"^(\s*(?:(?:--[^\n]*|/\*.*?\*/)\s*)*)CREATE\s+FUNCTION", r"\1CREATE OR REPLACE FUNCTION", s.strip(), count=1, flags=re.I | re.S))
                continue
        elif kind == "view" and m.group(1).lower() in old_views:
            out.append(re.sub(r"CREATE\s+VIEW", "CREATE OR REPLACE VIEW", s.strip(), count=1, flags=re.I))
            continue
        elif kind == "table" and m.group(1).lower() in old_tables:
            if not any(first.startswith(cv[:60]) for cv in covered):
                problems.append(f"changed table: {first}")
            continue
        elif kind == "trigger" and (m.group(1).lower(), m.group(2).lower()) in old_triggers:
            out.append(f"DROP TRIGGER IF EXISTS {m.group(1)} ON {m.group(2)};")
        elif kind == "index" and m.group(1).lower() in old_indexes:
            idx = m.group(1) if "." in m.group(1) else "kerai." + m.group(1)
            out.append(f"DROP INDEX IF EXISTS {idx};")
        elif kind == "insert" and m.group(1).lower() in old_tables and not any(first.startswith(cv[:60]) for cv in covered):
            problems.append(f"rows of a table 0.1.0 had (write the difference by hand): {first}")
        elif kind == "alter" and m.group(1).lower() in old_tables and not any(first.startswith(cv[:60]) for cv in covered):
            problems.append(f"ALTER of a table 0.1.0 had (write it by hand): {first}")
        if any(first.startswith(cv[:60]) for cv in covered):
            continue
        out.append(s.strip())
    if problems:
        sys.stderr.write("upgrade_script.py: write these by hand in %s:\n  %s\n" % (manual_path, "\n  ".join(problems)))
        sys.exit(1)
    print('\\echo Use "ALTER EXTENSION kerai UPDATE" to load this file. \\quit')
    print("-- Generated by scripts/upgrade_script.py from the install scripts of both versions, plus")
    print(f"-- {manual_path} (run first). Checked by tests/tests/upgrade.rs.\n")
    body = "\n".join(l for l in manual.splitlines() if not l.startswith("\\echo")).strip()
    if body:
        print(body + "\n")
    print("\n\n".join(out))
    if post:
        print("\n" + post)


if __name__ == "__main__":
    main()
