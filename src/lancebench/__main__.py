"""``python -m lancebench ...``: the same command line as the ``lancebench`` script."""

from lancebench.cli import main

main()
