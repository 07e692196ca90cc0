#!/usr/bin/env python3
"""Regenerates examples/site/ (the demo site: pages with real-looking navigation, headers,
footers, cookie banners and comments, robots.txt and sitemap.xml). The office files in
examples/site/files/ come from make-files.sh."""
import os, json, textwrap
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "site")
os.makedirs(ROOT, exist_ok=True)

NAV = [("/", "Home"), ("/about.html", "About"), ("/research/", "Research"), ("/people.html", "People"),
       ("/news/", "News"), ("/docs/", "Documents"), ("/contact.html", "Contact")]

def nav(active):
    act = ' class="active"'
    items = "\n".join(
        f'        <li{act if href == active else ""}><a href="{href}">{label}</a></li>'
        for href, label in NAV)
    return f"""    <header class="site-header">
      <a class="logo" href="/"><img src="/assets/logo.svg" alt="Northwind Institute"> Northwind Institute</a>
      <nav class="main-nav" aria-label="Main">
      <ul>
{items}
      </ul>
      </nav>
      <form class="search" action="/search" method="get"><input name="q" placeholder="Search the site"><button>Search</button></form>
    </header>"""

FOOTER = """    <footer class="site-footer">
      <div class="footer-cols">
        <div><h4>Northwind Institute</h4><p>12 Harbour Road, Aberdeen AB11 5XX, United Kingdom</p></div>
        <div><h4>Follow us</h4><ul><li><a href="https://social.example/northwind">Social</a></li><li><a href="/private/staff-only.html">Staff intranet</a></li></ul></div>
        <div><h4>Legal</h4><ul><li><a href="/privacy.html">Privacy</a></li><li><a href="/accessibility.html">Accessibility</a></li></ul></div>
      </div>
      <p class="copyright">© 2026 Northwind Institute for Cognitive Science. All rights reserved.</p>
    </footer>
    <div class="cookie-banner" id="cookies">We use cookies to improve your experience on our website. <button>Accept all</button> <button>Manage preferences</button></div>"""

SIDEBAR = """      <aside class="sidebar">
        <h3>Related</h3>
        <ul>
          <li><a href="/research/predictive-coding.html">Predictive coding</a></li>
          <li><a href="/news/2026-03-new-lab.html">A new lab opens</a></li>
          <li><a href="/docs/">Documents and reports</a></li>
        </ul>
        <div class="ad">Advertisement: Register now for the Summer School on Computational Psychiatry!</div>
      </aside>"""

SHARE = """        <div class="share-bar">Share this page: <a href="https://social.example/share">Social</a> <a href="mailto:?subject=Northwind">E-mail</a> <a href="#" onclick="print()">Print</a></div>"""

COMMENTS = """      <section class="comments" id="comments">
        <h3>3 comments</h3>
        <div class="comment"><p class="author">Sam</p><p>Great overview, thanks for sharing!</p></div>
        <div class="comment"><p class="author">Priya</p><p>Is there a recording of the seminar?</p></div>
        <div class="comment"><p class="author">Tom</p><p>+1, very helpful.</p></div>
        <form><textarea placeholder="Leave a comment"></textarea><button>Post comment</button></form>
      </section>"""

def page(path, title, description, body, active, extra_head="", sidebar=True, comments=False, lang="en", modified="2026-05-04"):
    html = f"""<!DOCTYPE html>
<html lang="{lang}">
  <head>
    <meta charset="utf-8">
    <title>{title} | Northwind Institute</title>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="description" content="{description}">
    <meta name="author" content="Northwind Institute Communications">
    <meta property="og:title" content="{title}">
    <meta property="og:description" content="{description}">
    <meta property="og:type" content="website">
    <meta property="og:site_name" content="Northwind Institute">
    <meta name="twitter:card" content="summary">
    <meta name="twitter:title" content="{title}">
    <meta property="article:modified_time" content="{modified}T09:00:00Z">
    <link rel="canonical" href="https://www.northwind.example{path}">
    <link rel="stylesheet" href="/assets/site.css">
{extra_head}  </head>
  <body>
{nav(active)}
    <div class="breadcrumbs"><a href="/">Home</a> › {title}</div>
    <div class="layout">
      <main id="content">
{textwrap.indent(body.strip(), "        ")}
{SHARE if comments else ""}
      </main>
{SIDEBAR if sidebar else ""}
{COMMENTS if comments else ""}
    </div>
{FOOTER}
    <script src="/assets/site.js"></script>
  </body>
</html>
"""
    out = os.path.join(ROOT, path.lstrip("/"))
    if out.endswith("/"):
        out += "index.html"
    os.makedirs(os.path.dirname(out), exist_ok=True)
    open(out, "w").write(html)

ORG = {"@context": "https://schema.org", "@type": "ResearchOrganization", "name": "Northwind Institute for Cognitive Science",
       "alternateName": "Northwind Institute", "url": "https://www.northwind.example/", "foundingDate": "1998-09-01",
       "numberOfEmployees": {"@type": "QuantitativeValue", "value": 142},
       "address": {"@type": "PostalAddress", "streetAddress": "12 Harbour Road", "addressLocality": "Aberdeen",
                   "postalCode": "AB11 5XX", "addressCountry": "GB"},
       "founder": {"@type": "Person", "name": "Margaret Lindqvist"},
       "email": "info@northwind.example", "telephone": "+44 1224 555 010"}

page("/", "Home", "Northwind Institute studies how brains and machines learn, predict and act.", """
<section class="hero">
  <h1>Understanding minds that predict</h1>
  <p>Northwind Institute studies how brains and machines learn, predict and act under uncertainty.</p>
  <a class="button" href="/research/">Explore our research</a>
</section>
<h2>What we do</h2>
<p>Our 142 researchers and staff work across three programmes: active inference, predictive coding in perception, and computational psychiatry. We publish openly and share our data.</p>
<p>This year we opened a new imaging lab and received a five-year grant of £4.2 million from the Research Council.</p>
<h2>Latest news</h2>
<ul>
  <li><a href="/news/2026-03-new-lab.html">Northwind opens the Lindqvist Imaging Lab</a> (March 2026)</li>
  <li><a href="/news/2026-05-grant.html">£4.2 million for computational psychiatry</a> (May 2026)</li>
</ul>
""", "/", sidebar=False)

page("/about.html", "About the Institute", "Founded in 1998, Northwind Institute is an independent research organization in Aberdeen.", """
<h1>About the Institute</h1>
<p>Northwind Institute for Cognitive Science was founded in 1998 by Margaret Lindqvist as an independent research organization. It is based in Aberdeen, Scotland, and employs 142 people.</p>
<h2>Mission</h2>
<p>We aim to understand how minds build models of the world, and to use that understanding to improve mental health care and the design of learning machines.</p>
<h2>Governance</h2>
<p>The Institute is governed by a board of nine trustees. Dr. Amara Okafor has been the Director since 2019. The annual budget for 2026 is £18.5 million, of which 61% comes from competitive grants.</p>
<h2>Key facts</h2>
<table>
  <thead><tr><th>Fact</th><th>Value</th></tr></thead>
  <tbody>
    <tr><td>Founded</td><td>1998</td></tr>
    <tr><td>Staff</td><td>142</td></tr>
    <tr><td>Research programmes</td><td>3</td></tr>
    <tr><td>Annual budget</td><td>£18.5 million</td></tr>
  </tbody>
</table>
""", "/about.html", extra_head='    <script type="application/ld+json">\n' + json.dumps(ORG, indent=2) + '\n    </script>\n')

page("/research/", "Research", "Three research programmes: active inference, predictive coding, computational psychiatry.", """
<h1>Research</h1>
<p>Northwind's research is organised in three programmes. Each one publishes its papers, code and data under open licences.</p>
<h2>Active inference</h2>
<p>How agents select actions that minimise expected free energy. Start with our <a href="/research/active-inference.html">reading guide to active inference</a>.</p>
<h2>Predictive coding</h2>
<p>How perception works as inference about the causes of sensory input. See <a href="/research/predictive-coding.html">predictive coding in perception</a>.</p>
<h2>Computational psychiatry</h2>
<p>How disorders of belief updating can explain symptoms, and how models can guide treatment.</p>
""", "/research/")

ARTICLE = """
<article>
<h1>A reading guide to active inference</h1>
<p class="byline">By Amara Okafor and Jonas Reed · Published 4 May 2026</p>
<p>Active inference is a theory of how living systems perceive, learn and act. It starts from the free-energy principle (Friston 2010), which says that self-organising systems keep themselves within expected states by minimising variational free energy. This guide walks through the ideas in the order we teach them to new students.</p>
<h2>Perception as inference</h2>
<p>The idea that perception is unconscious inference goes back to Helmholtz (1866). In modern form it appears as the "Bayesian brain hypothesis" (Knill &amp; Pouget, 2004) and as "predictive coding", where higher cortical levels predict the activity of lower ones and only the prediction errors are passed upward (Rao and Ballard, 1999; Friston, 2005).</p>
<p>Clark (2013) gives a readable philosophical account, and Hohwy (2013) develops it into a full theory of mind. A recent review is available at https://arxiv.org/abs/2003.04035 and as arXiv:2107.12979.</p>
<h2>From perception to action</h2>
<p>Active inference extends the same scheme to action: agents act to make their predictions come true (Friston et al., 2017a, b). The textbook by Parr, Pezzulo and Friston (2022) is the standard reference; a shorter synthesis is given by Parr &amp; Friston (2019) and a formal treatment of discrete state spaces by Da Costa et al. (2020).</p>
<p>Older cybernetic ideas anticipated this loop. Miller, Galanter and Pribram described behaviour as a TOTE (Test, Operate, Test, Exit) unit, and the good regulator theorem (Conant &amp; Ashby, 1970) says that every good regulator of a system must be a model of that system.</p>
<h2>Expected free energy</h2>
<p>When planning, an agent scores each policy by its expected free energy, which splits into an epistemic term (information gain) and a pragmatic term (preferred outcomes) (Friston et al., 2015; Schwartenbeck et al., 2019). This is how active inference explains curiosity without adding an exploration bonus.</p>
<h2>Where to go next</h2>
<ul>
  <li>The free-energy principle: a unified brain theory? doi:10.1038/nrn2787</li>
  <li>Our own lecture notes: <a href="/docs/">documents page</a></li>
  <li>The World Health Organization's mental health atlas (WHO, 2010; Bell and Sander, 2002).</li>
</ul>
<h2>References</h2>
<ol class="references">
  <li>Bell, G. S., &amp; Sander, J. W. (2002). The epidemiology of epilepsy: the size of the problem. <i>Seizure</i>, 11, 306–314. https://doi.org/10.1053/seiz.2001.0667</li>
  <li>Clark, A. (2013). Whatever next? Predictive brains, situated agents, and the future of cognitive science. <i>Behavioral and Brain Sciences</i>, 36(3), 181–204. https://doi.org/10.1017/S0140525X12000477</li>
  <li>Conant, R. C., &amp; Ashby, W. R. (1970). Every good regulator of a system must be a model of that system. <i>International Journal of Systems Science</i>, 1(2), 89–97. https://doi.org/10.1080/00207727008920220</li>
  <li>Da Costa, L., Parr, T., Sajid, N., Veselic, S., Neacsu, V., &amp; Friston, K. (2020). Active inference on discrete state-spaces: A synthesis. <i>Journal of Mathematical Psychology</i>, 99, 102447. https://doi.org/10.1016/j.jmp.2020.102447</li>
  <li>Friston, K. (2005). A theory of cortical responses. <i>Philosophical Transactions of the Royal Society B</i>, 360(1456), 815–836. https://doi.org/10.1098/rstb.2005.1622</li>
  <li>Friston, K. (2010). The free-energy principle: a unified brain theory? <i>Nature Reviews Neuroscience</i>, 11(2), 127–138. https://doi.org/10.1038/nrn2787</li>
  <li>Friston, K., Rigoli, F., Ognibene, D., Mathys, C., Fitzgerald, T., &amp; Pezzulo, G. (2015). Active inference and epistemic value. <i>Cognitive Neuroscience</i>, 6(4), 187–214. https://doi.org/10.1080/17588928.2015.1020053</li>
  <li>Friston, K., FitzGerald, T., Rigoli, F., Schwartenbeck, P., &amp; Pezzulo, G. (2017a). Active inference: a process theory. <i>Neural Computation</i>, 29(1), 1–49. https://doi.org/10.1162/NECO_a_00912</li>
  <li>Friston, K., Parr, T., &amp; de Vries, B. (2017b). The graphical brain: belief propagation and active inference. <i>Network Neuroscience</i>, 1(4), 381–414. https://doi.org/10.1162/NETN_a_00018</li>
  <li>Helmholtz, H. von (1866). <i>Handbuch der physiologischen Optik</i>. Leipzig: Voss.</li>
  <li>Hohwy, J. (2013). <i>The Predictive Mind</i>. Oxford: Oxford University Press.</li>
  <li>Knill, D. C., &amp; Pouget, A. (2004). The Bayesian brain: the role of uncertainty in neural coding and computation. <i>Trends in Neurosciences</i>, 27(12), 712–719. https://doi.org/10.1016/j.tins.2004.10.007</li>
  <li>Parr, T., &amp; Friston, K. J. (2019). Generalised free energy and active inference. <i>Biological Cybernetics</i>, 113(5), 495–513. https://doi.org/10.1007/s00422-019-00805-w</li>
  <li>Parr, T., Pezzulo, G., &amp; Friston, K. J. (2022). <i>Active Inference: The Free Energy Principle in Mind, Brain, and Behavior</i>. MIT Press. https://doi.org/10.7551/mitpress/12441.001.0001</li>
  <li>Rao, R. P., &amp; Ballard, D. H. (1999). Predictive coding in the visual cortex: a functional interpretation of some extra-classical receptive-field effects. <i>Nature Neuroscience</i>, 2(1), 79–87. https://doi.org/10.1038/4580</li>
  <li>Schwartenbeck, P., Passecker, J., Hauser, T. U., FitzGerald, T. H., Kronbichler, M., &amp; Friston, K. J. (2019). Computational mechanisms of curiosity and goal-directed exploration. <i>eLife</i>, 8, e41703. https://doi.org/10.7554/eLife.41703</li>
  <li>World Health Organization (WHO). (2010). <i>Mental Health Atlas</i>. Geneva: WHO.</li>
</ol>
</article>
"""
ART_LD = {"@context": "https://schema.org", "@type": "ScholarlyArticle", "headline": "A reading guide to active inference",
          "author": [{"@type": "Person", "name": "Amara Okafor"}, {"@type": "Person", "name": "Jonas Reed"}],
          "datePublished": "2026-05-04", "license": "https://creativecommons.org/licenses/by/4.0/",
          "publisher": {"@type": "Organization", "name": "Northwind Institute"}}
page("/research/active-inference.html", "A reading guide to active inference",
     "An introduction to active inference and the free-energy principle, with references.", ARTICLE, "/research/",
     extra_head='    <meta property="og:type" content="article">\n    <script type="application/ld+json">' + json.dumps(ART_LD) + '</script>\n', comments=True)

page("/research/predictive-coding.html", "Predictive coding in perception", "How the cortex may predict its own input.", """
<article>
<h1>Predictive coding in perception</h1>
<p>Predictive coding proposes that the cortex is a hierarchy of prediction machines. Each level sends predictions down and receives prediction errors back up. The error signals adjust the predictions until they explain the input.</p>
<h2>Evidence from vision</h2>
<p>Extra-classical receptive-field effects in visual cortex, such as end-stopping, are explained if neurons signal the part of the input that higher levels fail to predict (Rao and Ballard, 1999).</p>
<h2>Open questions</h2>
<ul>
  <li>How are precision weights on prediction errors set and learned?</li>
  <li>Which neural populations carry predictions and which carry errors?</li>
  <li>Does the same scheme explain attention?</li>
</ul>
<pre><code>error = observation - prediction
prediction += learning_rate * precision * error</code></pre>
<blockquote>Perception is controlled hallucination. — a common summary of the idea</blockquote>
</article>
""", "/research/", comments=True)

page("/people.html", "People", "The people of Northwind Institute.", """
<h1>People</h1>
<h2>Leadership</h2>
<ul>
  <li>Dr. Amara Okafor, Director</li>
  <li>Prof. Jonas Reed, Head of Active Inference</li>
  <li>Dr. Li Wei, Head of Computational Psychiatry</li>
</ul>
<h2>Research staff</h2>
<ul>
  <li>Dr. Sofia Marquez, Senior Research Fellow (predictive coding)</li>
  <li>Dr. Henrik Aalto, Research Fellow (imaging)</li>
  <li>Maya Patel, PhD candidate</li>
</ul>
<h2>Contact</h2>
<p>Write to people@northwind.example for any of our staff.</p>
""", "/people.html")

page("/news/", "News", "News from Northwind Institute.", """
<h1>News</h1>
<ul>
  <li><a href="/news/2026-05-grant.html">£4.2 million for computational psychiatry</a> (4 May 2026)</li>
  <li><a href="/news/2026-03-new-lab.html">Northwind opens the Lindqvist Imaging Lab</a> (12 March 2026)</li>
</ul>
""", "/news/")

page("/news/2026-03-new-lab.html", "Northwind opens the Lindqvist Imaging Lab", "A new 7 tesla imaging lab opens in Aberdeen.", """
<article>
<h1>Northwind opens the Lindqvist Imaging Lab</h1>
<p class="date">12 March 2026</p>
<p>Northwind Institute opened the Lindqvist Imaging Lab on 12 March 2026. The lab houses a 7 tesla MRI scanner and cost £6.8 million to build.</p>
<p>The lab is named after Margaret Lindqvist, who founded the Institute in 1998. Dr. Henrik Aalto will lead its scientific programme.</p>
</article>
""", "/news/", modified="2026-03-12")

page("/news/2026-05-grant.html", "£4.2 million for computational psychiatry", "A five-year grant for computational psychiatry.", """
<article>
<h1>£4.2 million for computational psychiatry</h1>
<p class="date">4 May 2026</p>
<p>The Research Council awarded Northwind Institute a five-year grant of £4.2 million for its computational psychiatry programme, led by Dr. Li Wei.</p>
<p>The grant funds twelve new positions and a clinical study with 400 participants at three hospitals in Scotland.</p>
</article>
""", "/news/", modified="2026-05-04")

page("/docs/", "Documents and reports", "Reports, guides and data from Northwind Institute.", """
<h1>Documents and reports</h1>
<p>Our reports and guides are published as PDF, Word and Excel files.</p>
<ul>
  <li><a href="/files/annual-report-2025.pdf">Annual Report 2025</a> (PDF)</li>
  <li><a href="/files/onboarding-guide.docx">Onboarding guide for new staff</a> (Word)</li>
  <li><a href="/files/budget-2026.xlsx">Budget 2026</a> (Excel)</li>
</ul>
""", "/docs/")

page("/contact.html", "Contact", "How to reach Northwind Institute.", """
<h1>Contact</h1>
<p>Northwind Institute, 12 Harbour Road, Aberdeen AB11 5XX, United Kingdom.</p>
<p>Telephone +44 1224 555 010, e-mail info@northwind.example.</p>
<h2>Visiting</h2>
<p>Reception is open Monday to Friday, 09:00 to 17:00. The nearest station is Aberdeen, a ten-minute walk away.</p>
""", "/contact.html")

page("/privacy.html", "Privacy notice", "How Northwind Institute handles personal data.", """
<h1>Privacy notice</h1>
<p>We process personal data only to run the Institute's services and research, under the UK GDPR. You can ask for a copy of the data we hold about you by writing to privacy@northwind.example.</p>
""", "/", sidebar=False)

page("/accessibility.html", "Accessibility", "Accessibility statement.", """
<h1>Accessibility statement</h1>
<p>We want as many people as possible to be able to use this website. The site aims to meet the Web Content Accessibility Guidelines version 2.2 at level AA.</p>
""", "/", sidebar=False)

page("/private/staff-only.html", "Staff only", "Internal page.", """
<h1>Staff only</h1>
<p>This page is disallowed by robots.txt and must never be crawled.</p>
""", "/", sidebar=False)

os.makedirs(ROOT + "/assets", exist_ok=True)
open(ROOT + "/assets/site.css", "w").write("body{font-family:sans-serif;margin:0}.site-header,.site-footer{background:#123;color:#fff;padding:1em}.layout{display:flex;gap:2em;padding:1em}main{flex:3}.sidebar{flex:1}.cookie-banner{position:fixed;bottom:0;background:#ffd;padding:.5em}\n")
open(ROOT + "/assets/site.js", "w").write("document.querySelectorAll('.cookie-banner button').forEach(b=>b.onclick=()=>b.parentElement.remove());\n")
open(ROOT + "/assets/logo.svg", "w").write('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><circle cx="16" cy="16" r="14" fill="#3a7"/></svg>\n')

open(ROOT + "/robots.txt", "w").write("""# Northwind Institute
User-agent: *
Disallow: /private/
Disallow: /search
Crawl-delay: 0

Sitemap: __SITE__/sitemap.xml
""")
urls = [("/", "2026-05-04", "weekly", "1.0"), ("/about.html", "2026-01-10", "monthly", "0.8"), ("/research/", "2026-04-01", "monthly", "0.8"),
        ("/research/active-inference.html", "2026-05-04", "monthly", "0.9"), ("/research/predictive-coding.html", "2026-02-20", "monthly", "0.7"),
        ("/people.html", "2026-04-15", "monthly", "0.6"), ("/news/", "2026-05-04", "weekly", "0.7"),
        ("/news/2026-03-new-lab.html", "2026-03-12", "yearly", "0.5"), ("/news/2026-05-grant.html", "2026-05-04", "yearly", "0.5"),
        ("/docs/", "2026-04-30", "monthly", "0.6"), ("/contact.html", "2025-11-02", "yearly", "0.4"),
        ("/files/annual-report-2025.pdf", "2026-04-30", "yearly", "0.6"), ("/files/onboarding-guide.docx", "2026-04-30", "yearly", "0.5"),
        ("/files/budget-2026.xlsx", "2026-04-30", "yearly", "0.5")]
sm = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
for u, lm, cf, pr in urls:
    sm.append(f"  <url><loc>__SITE__{u}</loc><lastmod>{lm}</lastmod><changefreq>{cf}</changefreq><priority>{pr}</priority></url>")
sm.append("</urlset>")
open(ROOT + "/sitemap.xml", "w").write("\n".join(sm) + "\n")
