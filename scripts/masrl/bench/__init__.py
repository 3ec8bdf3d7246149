"""``masrl bench``: the command, the targets it times and the synthetic inputs they run on.

* :mod:`.command` measures each target as whole processes and prints the report;
* :mod:`._targets` lists the targets with their budgets and makes their inputs;
* :mod:`._synth` generates large valid corpora from the real vocabulary.

May import anything below the commands.
"""
