#!/usr/bin/env python3
"""Extraction peers in the same run (`make bench`, section `peers`): kerai, trafilatura (the
Python package) and rs-trafilatura (the Rust crate) on AEB, the Readability pages and WCXB dev,
each scored by the set's own scorer, with the extraction time on one core (reading and
decompressing the pages left out) and kerai's speed as a ratio to each peer's. The figures also
go to FIGURES_DIR/extraction.json, for scripts/bench/report.py.

    peers.py SHARED WORKDIR KERAI_ROOT PEERS_BIN FIGURES_DIR
"""
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import time

shared, work, root, peers_bin, figures_dir = sys.argv[1:6]
os.makedirs(work, exist_ok=True)


def manifest(name):
    """[{id, path, url}] of one set."""
    if name == 'wcxb':
        rows = []
        for f in sorted(glob.glob(f'{shared}/bench/wcxb/dev/ground-truth/*.json')):
            i = os.path.basename(f)[:-5]
            url = json.load(open(f, encoding='utf8')).get('url') or ''
            rows.append({'id': i, 'path': f'{shared}/bench/wcxb/dev/html/{i}.html.gz', 'url': url})
        return rows
    gt = json.load(open(f'{shared}/bench/{name}/ground-truth.json', encoding='utf8'))
    return [{'id': i, 'path': f'{shared}/bench/{name}/html/{i}.html.gz', 'url': gt[i].get('url') or ''}
            for i in sorted(gt)]


def run_trafilatura(rows):
    import trafilatura
    pages = [(r['id'], gzip.open(r['path']).read(), r['url']) for r in rows]
    out, elapsed = {}, 0.0
    for i, html, url in pages:
        t = time.perf_counter()
        try:
            text = trafilatura.extract(html, url=url or None, output_format='txt',
                                       include_comments=False, include_tables=True) or ''
        except Exception:  # a peer's crash on one page scores it empty
            text = ''
        elapsed += time.perf_counter() - t
        out[i] = text
    return out, elapsed


def run_rs(rows, name):
    m = f'{work}/{name}-manifest.json'
    json.dump(rows, open(m, 'w'))
    res = f'{work}/{name}-rs.json'
    secs = float(subprocess.run([peers_bin, m, res], check=True, capture_output=True,
                                text=True).stdout.strip())
    return json.load(open(res, encoding='utf8')), secs


def run_kerai(name):
    ex = f'{root}/target/release/examples'
    if name == 'wcxb':
        res = f'{work}/wcxb-kerai.json'
        out = subprocess.run([f'{ex}/wcxb', '--out', res], check=True, capture_output=True,
                             text=True).stdout
        secs = float(re.search(r'time ([0-9.]+) s', out).group(1))
        # kerai's own scorer beside evaluate.py: the held-out fifth (ids divisible by 5) apart,
        # and how much of the gold markdown's structure the markdown keeps (a second, untimed
        # run).
        shown = subprocess.run([f'{ex}/wcxb', '--structure'], check=True, capture_output=True,
                               text=True).stdout
        print('\nkerai on WCXB dev by its own scorer (same word F1), tuned-on pages and the held-out fifth:')
        print(shown[shown.index('type'):].rstrip())
        return json.load(open(res, encoding='utf8')), secs
    d = f'{work}/{name}-kerai'
    os.makedirs(d, exist_ok=True)
    out = subprocess.run([f'{ex}/aeb', '--set', name, '--out', d], check=True,
                         capture_output=True, text=True).stdout
    secs = float(re.search(r'time ([0-9.]+)s', out).group(1))
    preds = {}
    for f in glob.glob(f'{d}/*.txt'):
        preds[os.path.basename(f)[:-4]] = open(f, encoding='utf8').read()
    return preds, secs


def score(name, preds, tag):
    """{'all': (f1, p, r), type: (f1, p, r) ...} by the set's own scorer."""
    if name == 'wcxb':
        res = f'{work}/wcxb-{tag}-scored.json'
        json.dump(preds, open(res, 'w'))
        out = subprocess.run([sys.executable, 'evaluate.py', '--split', 'dev', '--results', res,
                              '--per-type'], cwd=f'{shared}/bench/wcxb', check=True,
                             capture_output=True, text=True).stdout
        p = float(re.search(r'Precision:\s+([0-9.]+)', out).group(1))
        r = float(re.search(r'Recall:\s+([0-9.]+)', out).group(1))
        f = float(re.search(r'F1:\s+([0-9.]+)', out).group(1))
        scores = {'all': (f, p, r)}
        for m in re.finditer(r'^\s+([a-z]+)\s+\d+\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s*$', out, re.M):
            scores[m.group(1)] = (float(m.group(2)), float(m.group(3)), float(m.group(4)))
        return scores
    d = f'{work}/{name}-{tag}-pred'
    os.makedirs(d, exist_ok=True)
    for i, t in preds.items():
        open(f'{d}/{i}.txt', 'w', encoding='utf8').write(t)
    out = subprocess.run([sys.executable, f'{shared}/bench/aeb/score.py', '--gt',
                          f'{shared}/bench/{name}/ground-truth.json', d], check=True,
                         capture_output=True, text=True).stdout
    p = float(re.search(r'precision:\s+([0-9.]+)', out).group(1))
    r = float(re.search(r'recall:\s+([0-9.]+)', out).group(1))
    f = float(re.search(r'F1:\s+([0-9.]+)', out).group(1))
    return {'all': (f, p, r)}


def cargo_version(path, pattern):
    return re.search(pattern, open(path, encoding='utf8').read(), re.M).group(1)


def kerai_version():
    """The workspace's version and the commit of this tree (the commit left out outside git)."""
    version = cargo_version(f'{root}/Cargo.toml', r'^version = "([^"]+)"')
    commit = subprocess.run(['git', '-C', root, 'rev-parse', '--short', 'HEAD'],
                            capture_output=True, text=True).stdout.strip()
    return f'{version} ({commit})' if commit else version


def set_figures(title, pages, runs, scores):
    """One set's entry of extraction.json: per extractor, its seconds and {key: {f1, precision, recall}}."""
    return {'title': title, 'pages': pages,
            'extractors': {k: {'seconds': round(runs[k][1], 3),
                               'scores': {key: dict(zip(('f1', 'precision', 'recall'), fpr))
                                          for key, fpr in scores[k].items()}}
                           for k in runs}}


def write_figures(versions, sets):
    os.makedirs(figures_dir, exist_ok=True)
    with open(f'{figures_dir}/extraction.json', 'w', encoding='utf8') as f:
        json.dump({'versions': versions, 'sets': sets}, f, indent=1)


import trafilatura  # noqa: E402  (fails early, before any work, when it is missing)
rs_version = cargo_version(f'{root}/scripts/bench/peers/Cargo.toml', r'^rs-trafilatura = "=([^"]+)"')
versions = {'kerai': kerai_version(), 'trafilatura': trafilatura.__version__, 'rs-trafilatura': rs_version}
print(f'extractors: kerai (this tree), trafilatura {trafilatura.__version__} (Python), '
      f'rs-trafilatura {rs_version} (Rust); F1 (P, R) by each set\'s scorer; time on one core')
total = {'kerai': 0.0, 'trafilatura': 0.0, 'rs-trafilatura': 0.0}
figures = {}
for name, title in [('aeb', 'AEB, 181 articles (shingle F1)'),
                    ('readability', 'Readability test pages, 130 (shingle F1)'),
                    ('wcxb', 'WCXB dev, 1,497 pages of 7 types (word F1, evaluate.py)')]:
    rows = manifest(name)
    runs = {'kerai': run_kerai(name), 'trafilatura': run_trafilatura(rows),
            'rs-trafilatura': run_rs(rows, name)}
    scores = {k: score(name, v[0], k) for k, v in runs.items()}
    figures[name] = set_figures(title, len(rows), runs, scores)
    print(f'\n{title}')
    print(f'  {"":<14} {"kerai":<24} {"trafilatura":<24} {"rs-trafilatura":<24}')
    for key in scores['kerai']:
        cells = []
        for k in runs:
            f, p, r = scores[k].get(key, (0, 0, 0))
            cells.append(f'{f:.3f} ({p:.3f}, {r:.3f})')
        print(f'  {key:<14} ' + ' '.join(f'{c:<24}' for c in cells))
    secs = {k: v[1] for k, v in runs.items()}
    for k in secs:
        total[k] += secs[k]
    print(f'  {"time":<14} ' + ' '.join(f'{secs[k]:<24.2f}' for k in runs))
print('\nall three sets: kerai {:.2f} s; trafilatura {:.2f} s ({:.1f}x kerai); rs-trafilatura {:.2f} s ({:.1f}x kerai)'
      .format(total['kerai'], total['trafilatura'], total['trafilatura'] / total['kerai'],
              total['rs-trafilatura'], total['rs-trafilatura'] / total['kerai']))
write_figures(versions, figures)
