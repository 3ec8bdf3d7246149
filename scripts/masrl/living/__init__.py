"""The living corpus: the search protocol as data, discovery and screening rounds, a facts refresh.

* :mod:`._protocol` loads and checks ``protocol.yaml`` (its boundary rules and their precedents
  too) and assigns records to search rounds;
* :mod:`._net` fetches over HTTP with a disk cache and a pace per host;
* :mod:`._sources` turns arXiv, OpenAlex and hand-made lists into candidates;
* :mod:`._rank` scores candidates by likely inclusion, and :mod:`._evaluate` measures how well it
  orders the recorded decisions (``masrl discover --evaluate``);
* :mod:`._queue` keeps the screening queue, one YAML file per candidate in ``screening/``;
* :mod:`._facts` reads current facts for existing records (``masrl refresh``), with :mod:`._text`
  (text as services send it, made into facts) and :mod:`._venue` (a venue read from free text);
* :mod:`._scaffold` turns a citation into a new paper record (``masrl add``, ``masrl screen``), and
  :mod:`._arxiv` reads a citation from the arXiv API;
* :mod:`._links` checks that every URL in the records still answers (``masrl links``);
* :mod:`._lists` reads other curated lists of the field (Markdown, BibTeX, CSV) as papers and
  matches them against the corpus (``masrl coverage``, ``masrl discover --source list``);
* :mod:`.discover`, :mod:`.screen`, :mod:`.refresh`, :mod:`.coverage` and :mod:`.cache` are the commands; the weekly
  run that drives them (:mod:`masrl.weekly`) sits with the other commands above the wings.

May import: :mod:`masrl.corpus`, :mod:`masrl.trace` and :mod:`masrl.base`; never :mod:`masrl.analysis`.
"""
