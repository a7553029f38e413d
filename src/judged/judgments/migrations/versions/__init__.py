"""One file per migration, named ``NNNN_what.py`` with revision id ``NNNN``, applied in order."""
