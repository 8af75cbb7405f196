"""gdpproof's version, in a module of its own so that parts of the package (the report, reference
headers, the command line's ``--version``) can read it without importing ``gdpproof/__init__.py``."""

__version__ = "0.1.0"
