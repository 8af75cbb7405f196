"""Reference tables: certified values in the formats people paste into tests and papers.

* :func:`make_table` computes a table of one kind (delta, epsilon, mu, sigma, tradeoff,
  subsampled, rr-composition, dpsgd) over a grid, every value certified to the requested
  digits and rounded in its safe direction; chunks run on any executor and the output does not
  depend on the workers; writing is atomic and an interrupted run resumes (rows its journal
  holds signed with the user's key are not recomputed; :class:`JournalNote` says when they are).
* :func:`verify_table` recomputes a random sample of rows of any table in these formats (ours or
  a third party's) at higher precision and lists every wrong value.
* :func:`read_table` reads a table back, or one of the tables shipped in ``reference/data``
  (:data:`SHIPPED`), which :func:`regenerate_shipped` rebuilds byte for byte.
* :mod:`gdpproof.reference.census2020` re-accounts the 2020 U.S. Census redistricting persons
  file from the Bureau's production allocations (shipped with their provenance).
"""

from ._journal_key import JournalNote
from .generate import TableSpec, make_table
from .grid import parse_grid
from .shipped import SHIPPED, check_shipped, regenerate_shipped
from .table import FORMATS, Table, read_table
from .verify import Mismatch, TableVerification, verify_table

__all__ = ["FORMATS", "JournalNote", "Mismatch", "SHIPPED", "Table", "TableSpec", "TableVerification",
           "check_shipped", "make_table", "parse_grid", "read_table", "regenerate_shipped", "verify_table"]
