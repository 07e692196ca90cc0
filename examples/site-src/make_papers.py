#!/usr/bin/env python3
"""Regenerates examples/site/papers/: the open copies the citation loop of `make demo` finds
through the fake scholarly services (scripts/serve_scholarly.py, catalogue
examples/scholarly/works.json), and that the end-to-end tests serve as real PDFs and pages.

They are short STAND-INS written for the demo, not the texts of the works they are named after:
each says so at the top. The bibliographic facts (titles, authors, years, venues) are those of
the real works; the bodies are generic prose about active inference, and the reference lists
are what the loop follows one level deeper.

PDFs are printed by Chromium (`chromium --headless --print-to-pdf`); nothing here is needed to
build or test kerai: the outputs are committed. Nothing on the site links to papers/, and the
sitemap does not list it, so a site crawl of the example site never sees these files.

    python3 examples/site-src/make_papers.py
"""
import html
import os
import shutil
import subprocess
import tempfile

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "site", "papers")

# Sentences the stand-ins are made of (original prose, no quotation of any work).
BANK = [
    "Active inference casts perception, learning and action as one process: the minimisation of variational free energy under a generative model of how hidden states cause observations.",
    "Variational free energy is an upper bound on surprise, so an agent that keeps it low also keeps itself within the states it expects to occupy.",
    "Perception updates beliefs about hidden states so that they explain the observations at hand, while action changes the observations so that they fit the beliefs.",
    "Under a discrete state-space model the generative model is written with a likelihood matrix, transition matrices for each action, preferences over outcomes and a prior over initial states.",
    "Belief updating then reduces to a gradient descent on free energy, which can be implemented by simple message passing between neighbouring nodes of a factor graph.",
    "Policies, or sequences of actions, are scored by their expected free energy, which adds an epistemic term, the expected information gain, to a pragmatic term, the expected log preference.",
    "The epistemic term explains why agents explore: an uncertain part of the world is worth visiting because observing it resolves uncertainty about hidden states or model parameters.",
    "Predictive coding is a special case for continuous states with Gaussian assumptions, in which prediction errors are passed up a hierarchy and predictions are passed down.",
    "The precision of prediction errors plays the role of attention: errors that are expected to be reliable are weighted more heavily in belief updating.",
    "Learning is the slow accumulation of evidence about model parameters, expressed as updates of Dirichlet concentration parameters that count co-occurrences of states and outcomes.",
    "Model comparison and structure learning follow from the same quantity, because free energy also bounds the evidence for a model and so trades accuracy against complexity.",
    "Neuronal interpretations map expectations onto firing rates, prediction errors onto superficial pyramidal cells and precision onto neuromodulatory gain.",
    "Simulations of simple tasks, such as a T-maze with a cue and a reward, show how agents first seek the cue and then exploit what it reveals.",
    "Several open questions remain, among them how deep temporal models are learned and how the scheme scales to high-dimensional observations.",
    "Comparisons with reinforcement learning show that reward maximisation is recovered when preferences are sharp and uncertainty about states vanishes.",
    "The same formalism describes homeostatic and allostatic regulation, in which interoceptive predictions are fulfilled by autonomic reflexes.",
]

# name, kind (html/pdf), title, authors, year, venue, license line, references
PAPERS = [
    ("dacosta-2020", "html", "Active inference on discrete state-spaces: A synthesis",
     "Lancelot Da Costa, Thomas Parr, Noor Sajid, Sebastijan Veselic, Victorita Neacsu, Karl Friston", 2020,
     "Journal of Mathematical Psychology, 99, 102447", "CC BY 4.0",
     ["Friston, K. (2010). The free-energy principle: a unified brain theory? Nature Reviews Neuroscience, 11(2), 127–138. https://doi.org/10.1038/nrn2787",
      "Parr, T., &amp; Friston, K. J. (2019). Generalised free energy and active inference. Biological Cybernetics, 113(5), 495–513. https://doi.org/10.1007/s00422-019-00805-w",
      "Parr, T., Da Costa, L., &amp; Friston, K. (2020). Markov blankets, information geometry and stochastic thermodynamics. Philosophical Transactions of the Royal Society A, 378(2164), 20190159."]),
    ("friston-2017a", "html", "Active inference: a process theory",
     "Karl Friston, Thomas FitzGerald, Francesco Rigoli, Philipp Schwartenbeck, Giovanni Pezzulo", 2017,
     "Neural Computation, 29(1), 1–49", "free to read",
     ["Friston, K., Rigoli, F., Ognibene, D., Mathys, C., Fitzgerald, T., &amp; Pezzulo, G. (2015). Active inference and epistemic value. Cognitive Neuroscience, 6(4), 187–214. https://doi.org/10.1080/17588928.2015.1020053",
      "Friston, K. (2005). A theory of cortical responses. Philosophical Transactions of the Royal Society B, 360(1456), 815–836. https://doi.org/10.1098/rstb.2005.1622"]),
    ("friston-2017b", "html", "The graphical brain: belief propagation and active inference",
     "Karl Friston, Thomas Parr, Bert de Vries", 2017, "Network Neuroscience, 1(4), 381–414", "CC BY 4.0",
     ["Parr, T., &amp; Friston, K. J. (2018). The anatomy of inference: generative models and brain structure. Frontiers in Computational Neuroscience, 12, 90.",
      "Rao, R. P., &amp; Ballard, D. H. (1999). Predictive coding in the visual cortex: a functional interpretation of some extra-classical receptive-field effects. Nature Neuroscience, 2(1), 79–87. https://doi.org/10.1038/4580"]),
    ("schwartenbeck-2019", "html", "Computational mechanisms of curiosity and goal-directed exploration",
     "Philipp Schwartenbeck, Johannes Passecker, Tobias U. Hauser, Thomas H. B. FitzGerald, Martin Kronbichler, Karl J. Friston",
     2019, "eLife, 8, e41703", "CC BY 4.0",
     ["Friston, K., Rigoli, F., Ognibene, D., Mathys, C., Fitzgerald, T., &amp; Pezzulo, G. (2015). Active inference and epistemic value. Cognitive Neuroscience, 6(4), 187–214. https://doi.org/10.1080/17588928.2015.1020053"]),
    ("parr-2020", "html", "Markov blankets, information geometry and stochastic thermodynamics",
     "Thomas Parr, Lancelot Da Costa, Karl Friston", 2020,
     "Philosophical Transactions of the Royal Society A, 378(2164), 20190159", "CC BY 4.0",
     ["Friston, K. (2010). The free-energy principle: a unified brain theory? Nature Reviews Neuroscience, 11(2), 127–138. https://doi.org/10.1038/nrn2787"]),
    ("parr-friston-2018", "html", "The anatomy of inference: generative models and brain structure",
     "Thomas Parr, Karl J. Friston", 2018, "Frontiers in Computational Neuroscience, 12, 90", "CC BY 4.0",
     ["Friston, K. (2005). A theory of cortical responses. Philosophical Transactions of the Royal Society B, 360(1456), 815–836. https://doi.org/10.1098/rstb.2005.1622"]),
    ("friston-2005", "pdf", "A theory of cortical responses", "Karl Friston", 2005,
     "Philosophical Transactions of the Royal Society B, 360(1456), 815–836", "free to read",
     ["Rao, R. P., &amp; Ballard, D. H. (1999). Predictive coding in the visual cortex. Nature Neuroscience, 2(1), 79–87. https://doi.org/10.1038/4580"]),
    ("parr-friston-2019", "pdf", "Generalised free energy and active inference", "Thomas Parr, Karl J. Friston", 2019,
     "Biological Cybernetics, 113(5), 495–513", "CC BY 4.0",
     ["Da Costa, L., Parr, T., Sajid, N., Veselic, S., Neacsu, V., &amp; Friston, K. (2020). Active inference on discrete state-spaces: A synthesis. Journal of Mathematical Psychology, 99, 102447. https://doi.org/10.1016/j.jmp.2020.102447"]),
    ("millidge-2021", "pdf", "Predictive Coding: a Theoretical and Experimental Review",
     "Beren Millidge, Anil Seth, Christopher L Buckley", 2021, "arXiv preprint", "arXiv (free to read)",
     ["Rao, R. P., &amp; Ballard, D. H. (1999). Predictive coding in the visual cortex. Nature Neuroscience, 2(1), 79–87. https://doi.org/10.1038/4580"]),
]

SECTIONS = ["Introduction", "Background", "The argument", "Simulations", "Discussion"]


def body(i):
    out = []
    for s, name in enumerate(SECTIONS):
        sentences = [BANK[(i * 3 + s * 4 + k) % len(BANK)] for k in range(4)]
        out.append(f"<h2>{name}</h2>\n<p>{' '.join(sentences)}</p>")
    return "\n".join(out)


def page(i, name, title, authors, year, venue, license_line, refs):
    items = "\n".join(f"<li>{r}</li>" for r in refs)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(title)}</title>
<meta name="citation_title" content="{html.escape(title)}">
<meta name="citation_publication_date" content="{year}">
<style>body {{ font-family: serif; max-width: 40em; margin: 2em auto; }}</style>
</head>
<body>
<article>
<h1>{html.escape(title)}</h1>
<p>{html.escape(authors)} · <i>{html.escape(venue)}</i> · {year} · License: {html.escape(license_line)}</p>
<p><em>This is a short stand-in written for the kerai demo, not the text of the work it is named after.</em></p>
{body(i)}
<h2>References</h2>
<ol>
{items}
</ol>
</article>
</body>
</html>
"""


HELMHOLTZ = """HANDBUCH DER PHYSIOLOGISCHEN OPTIK

(Stand-in for the Internet Archive's OCR text, written for the kerai demo; not the text of the book.)

""" + "\n\n".join(
    " ".join(BANK[(k * 5 + j) % len(BANK)] for j in range(4)) for k in range(6)
) + "\n"


def main():
    os.makedirs(OUT, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, kind, title, authors, year, venue, lic, refs) in enumerate(PAPERS):
            text = page(i, name, title, authors, year, venue, lic, refs)
            if kind == "html":
                with open(os.path.join(OUT, name + ".html"), "w") as f:
                    f.write(text)
                continue
            if not chromium:
                raise SystemExit("chromium is needed to print the PDFs (apt-get install chromium)")
            src = os.path.join(tmp, name + ".html")
            with open(src, "w") as f:
                f.write(text)
            subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                            f"--print-to-pdf={os.path.join(OUT, name + '.pdf')}", "file://" + src],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(OUT, "handbuchderphysi00helm_djvu.txt"), "w") as f:
        f.write(HELMHOLTZ)
    for n in sorted(os.listdir(OUT)):
        print(n, os.path.getsize(os.path.join(OUT, n)))


if __name__ == "__main__":
    main()
