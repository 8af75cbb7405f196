"""The version of gdpproof, in a module of its own so that any layer can read it without
importing the package (``gdpproof/__init__.py`` loads the whole public API)."""

__version__ = "0.1.0"
