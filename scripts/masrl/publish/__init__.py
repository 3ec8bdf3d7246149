"""Publishing: every generated file, from the analysed corpus to README blocks, site pages and figures.

* :mod:`._build` runs the pipeline (load, analyse, render) and returns every output in memory;
* :mod:`._render` renders the README blocks and :mod:`._site` the site pages, from ``templates/``;
* :mod:`._news` makes What's new and its Atom feed; :mod:`._log` cuts the exclusion log into
  pages; :mod:`._figures` draws the SVG figures;
* :mod:`._diff` says what a change does to the corpus, for pull requests;
* :mod:`._state` fingerprints a build so an unchanged corpus is not rebuilt;
* :mod:`._browser` starts headless Chromium for the site's tests and benchmarks.

May import: :mod:`masrl.analysis`, :mod:`masrl.living`, :mod:`masrl.trace`, :mod:`masrl.corpus`
and :mod:`masrl.base`.
"""
