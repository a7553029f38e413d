"""The package version, defined once: ``pyproject.toml`` reads it from here and the provenance records it."""

__version__ = "0.1.0"
