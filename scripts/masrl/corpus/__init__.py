"""The corpus: the data model, and everything that reads, checks or writes records.

* :mod:`._yaml` reads YAML and remembers where every value came from;
* :mod:`._vocab` loads the controlled vocabulary from ``taxonomy.yaml``;
* :mod:`._schema` defines the shape of each record kind (and the JSON Schemas drawn from it);
* :mod:`._records` holds the typed records and loads a corpus; :mod:`._checks` holds the rules
  that look across fields and records;
* :mod:`._format` writes records in canonical form; :mod:`._export` and :mod:`._bibtex` turn
  them into CSV, JSON and BibTeX; :mod:`._datapackage` describes the exports as a Frictionless
  Data Package.

May import: :mod:`masrl.base`.
"""
