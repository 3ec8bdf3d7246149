"""``python -m masrl`` runs the command line."""

from masrl.cli import main

main()
