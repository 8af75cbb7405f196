"""The layers of gdpproof import one way (docs/architecture.md): no import circles, symbolic free of numeric.

The graph is read from the source, not from ``sys.modules``: every ``import`` and ``from ...
import`` statement of every module of ``gdpproof/`` counts, including those inside functions
(a lazy import hides a circle at start-up but not from a reader, and the circle still ties the
modules together).  ``from package import name`` counts as an import of ``package`` (its
``__init__`` runs) and, when ``name`` is a submodule, of ``package.name`` too.  Imports of other
distributions are ignored.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gdpproof"


def modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file under ``package`` (``__init__`` names its package)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _known(name: str, known: dict[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is a module of the package (None if there is none)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that the module ``name`` (at ``path``) imports, anywhere in its body."""
    # a relative import is resolved against the package containing the module (a package's
    # __init__ is inside the package itself)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level - 1 > len(package):
                    raise AssertionError(f"{path}: relative import beyond the top of the package")
                base = package[:len(package) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            candidates = [source] + [f"{source}.{alias.name}" for alias in node.names]
        else:
            continue
        for candidate in candidates:
            target = _known(candidate, known)
            if target is not None and target != name:
                targets.add(target)
    return targets


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    known = modules(package)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def cycle_through(start: str, component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path start -> ... -> start inside the component (breadth first)."""
    inside = set(component)
    previous: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in sorted(graph[node] & inside):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return path[::-1] + [start]
            if nxt not in previous:
                previous[nxt] = node
                queue.append(nxt)
    raise AssertionError(f"{start} is on no cycle of {component}")  # pragma: no cover


def describe(component: list[str], graph: dict[str, set[str]]) -> str:
    """A circle as text: its modules, one cycle through its first module, and every tie inside it."""
    ties = "; ".join(f"{a} -> {b}" for a in component for b in sorted(graph[a]) if b in component)
    cycle = " -> ".join(cycle_through(component[0], component, graph))
    return f"circle of {len(component)} modules: {cycle}\n    all ties: {ties}"


def upward_from_symbolic(graph: dict[str, set[str]]) -> list[str]:
    """Every import from gdpproof.symbolic (or below) into gdpproof.numeric (or below)."""
    def within(module: str, layer: str) -> bool:
        return module == layer or module.startswith(layer + ".")

    return sorted(f"{a} -> {b}" for a in graph for b in graph[a]
                  if within(a, "gdpproof.symbolic") and within(b, "gdpproof.numeric"))


# ---- the walker itself, on a package written for the purpose -----------------------------------


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_the_walker_sees_lazy_relative_and_package_imports(tmp_path):
    pkg = _write(tmp_path, {
        "pkg/__init__.py": "from .a import f\n",
        "pkg/a.py": "import os\n\ndef f():\n    from .sub import g  # lazy\n    return g\n",
        "pkg/sub/__init__.py": "from .. import a\n",
        "pkg/sub/g.py": "import pkg.sub\nfrom pkg import a as _a\n",
        "pkg/b.py": "from . import a\nfrom .sub.g import x\n",
    })
    graph = import_graph(pkg)
    assert graph == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.sub", "pkg.sub.g"},  # `from .sub import g`: the package and its submodule g
        "pkg.sub": {"pkg", "pkg.a"},  # `from .. import a` runs pkg/__init__ and imports pkg.a
        "pkg.sub.g": {"pkg", "pkg.sub", "pkg.a"},
        "pkg.b": {"pkg", "pkg.a", "pkg.sub.g"},
    }


def test_the_walker_finds_a_circle_kept_alive_by_a_lazy_import(tmp_path):
    pkg = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/low.py": "def f():\n    from .high import h\n    return h\n",
        "pkg/high.py": "from .low import f\n",
        "pkg/alone.py": "from .low import f\n",
    })
    graph = import_graph(pkg)
    assert circles(graph) == [["pkg.high", "pkg.low"]]
    text = describe(["pkg.high", "pkg.low"], graph)
    assert "pkg.high -> pkg.low -> pkg.high" in text and "pkg.low -> pkg.high" in text


def test_the_walker_finds_symbolic_importing_numeric(tmp_path):
    pkg = _write(tmp_path, {
        "gdpproof/__init__.py": "",
        "gdpproof/symbolic/__init__.py": "",
        "gdpproof/symbolic/tradeoff.py": "def f():\n    from ..numeric import fast\n",
        "gdpproof/numeric/__init__.py": "",
        "gdpproof/numeric/fast.py": "from ..symbolic.tradeoff import f\n",
    }).parent / "gdpproof"
    assert upward_from_symbolic(import_graph(pkg)) == ["gdpproof.symbolic.tradeoff -> gdpproof.numeric",
                                                       "gdpproof.symbolic.tradeoff -> gdpproof.numeric.fast"]


# ---- gdpproof ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(PACKAGE)


def test_no_import_circles(graph):
    found = circles(graph)
    assert not found, "import circles in gdpproof/ (lazy imports included):\n  " + "\n  ".join(
        describe(c, graph) for c in found)


def test_symbolic_imports_nothing_of_numeric(graph):
    upward = upward_from_symbolic(graph)
    assert not upward, "gdpproof.symbolic imports gdpproof.numeric (lazy imports included):\n  " + "\n  ".join(upward)


def test_mp_is_the_floor_of_numeric(graph):
    """numeric/_mp.py, the only module that touches mpmath and python-flint internals, imports no
    other gdpproof module: every numeric engine stands on it."""
    assert not {t for t in graph["gdpproof.numeric.engine._mp"] if t.startswith("gdpproof")}


def test_the_uses_layers_import_modules_not_the_package(graph):
    """audit, reference, report and strategies import the modules they use, never gdpproof/__init__."""
    uses = ("gdpproof.audit", "gdpproof.reference", "gdpproof.report", "gdpproof.strategies", "gdpproof._strategies")
    offenders = sorted(m for m, targets in graph.items() if m.startswith(uses) and "gdpproof" in targets)
    assert not offenders, f"these import the package gdpproof/__init__.py: {offenders}"


# ---- accounting is one door ---------------------------------------------------------------------

#: gdpproof/__init__.py re-exports the engine's expert entry points under their old names
#: (CHANGELOG.md lists them); nothing else outside gdpproof/accounting/ reaches past the door.
DOOR_EXCEPTIONS = {"gdpproof": {"gdpproof.accounting.compose", "gdpproof.accounting.search",
                                "gdpproof.accounting.losses"}}


def test_nothing_outside_accounting_imports_its_engine(graph):
    offenders = []
    for module, targets in graph.items():
        if module == "gdpproof.accounting" or module.startswith("gdpproof.accounting."):
            continue
        for t in sorted(targets):
            if t.startswith("gdpproof.accounting.") and t not in DOOR_EXCEPTIONS.get(module, ()):
                offenders.append(f"{module} -> {t}")
    assert not offenders, "import gdpproof.accounting (the door), not its modules: " + "; ".join(offenders)


#: hand-written modules stay readable; a generated file says so in its first line and is exempt
MAX_LINES = 800


def test_no_hand_written_module_is_longer_than_800_lines():
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "generated" in text.split("\n", 1)[0].lower():
            continue
        n = text.count("\n")
        if n > MAX_LINES:
            long.append(f"{path.relative_to(PACKAGE.parent)} ({n} lines)")
    assert not long, f"split these (at most {MAX_LINES} lines a module): {long}"


def test_every_reference_in_the_code_points_inside_the_repository():
    """Comments, docstrings and pages (the package, tests, benchmarks, derivations, docs and
    notebooks) cite papers, files of this repository and its docs/, never the design notes
    that live outside it."""
    outside = ("DESIGN" + " §", "STYLE" + " §", "DESIGN" + ".md", "STYLE" + ".md")
    root = PACKAGE.parent
    folders = (PACKAGE, root / "tests", root / "benchmarks", root / "derivations", root / "docs", root / "notebooks")
    files = [path for folder in folders for path in sorted(folder.rglob("*"))
             if path.suffix in (".py", ".md", ".ipynb", ".txt", ".toml", ".cfg", ".yml") and ".venv" not in path.parts]
    files += [root / name for name in ("README.md", "CHANGELOG.md", "Makefile", "pyproject.toml") if (root / name).exists()]
    found = [f"{path.relative_to(root)}:{i}" for path in files
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if any(o in line for o in outside)]
    assert not found, found


def test_no_private_name_crosses_modules():
    """What another module needs is public in its own module: no ``from M import _name`` between
    gdpproof's modules (underscore *modules* such as ``_args`` are the package's implementation
    layer and may be imported; their names follow the same rule)."""
    known = modules(PACKAGE)
    crossing = []
    for name, path in known.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = package[:len(package) - (node.level - 1)] if node.level else []
            source = ".".join(base + ([node.module] if node.module else [])) if node.level else (node.module or "")
            if source not in known or source == name:
                continue
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and f"{source}.{alias.name}" not in known:
                    crossing.append(f"{name}: from {source} import {alias.name}")
    assert not crossing, crossing


#: Functions that turn a number into text, and the names such helpers had before they moved to
#: :mod:`gdpproof.text`: a function of one of these names anywhere else is a second number→text
#: helper (or an old one come back).
NUMBER_TEXT_NAMES = {"show", "fraction_text", "double_text", "decimal_text", "show_number", "given_text",
                     "answer_text", "cell_text", "table_value_text", "json_number", "round_fraction",
                     "decimal_digits", "terminating_text", "significant_text", "percent_text", "short_number", "num", "dec",
                     "_sig", "_percent", "format_given", "value_text", "_fmt", "_short", "_show", "_text"}


def test_numbers_are_written_in_one_module():
    """Every number→text helper is defined in gdpproof/text.py, the one module that owns them."""
    outside = _defined_outside(NUMBER_TEXT_NAMES, "gdpproof.text")
    assert not outside, outside


def _defined_outside(names: set[str], owner: str) -> list[str]:
    """Where a function with one of ``names`` is defined in a module other than ``owner``."""
    outside = []
    for name, path in modules(PACKAGE).items():
        if name == owner:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
                outside.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: def {node.name}")
    return outside


def test_the_text_module_defines_the_names_it_owns():
    """The rule above is not vacuous: gdpproof/text.py defines the helpers it names."""
    text = ast.parse((PACKAGE / "text.py").read_text(encoding="utf-8"))
    defined = {node.name for node in text.body if isinstance(node, ast.FunctionDef)}
    assert {"show", "fraction_text", "double_text", "decimal_text", "show_number", "given_text"} <= defined


#: The argument parsers (and the names of the modules they were merged from): a function of one of
#: these names outside gdpproof/_args.py is a second parser of user numbers.
PARSER_NAMES = {"plain_value", "count", "seed", "exact", "positive_integer", "rational_fraction",
                "nonnegative_fraction", "positive_fraction", "probability_fraction", "is_sympy",
                # the doubles of the Monte Carlo samplers and the command line's number options
                "positive_double", "ascii_number", "int_option", "float_option",
                # the names of the parsers these were merged from (simulation, cli/_common, mechanisms)
                "_positive", "simulated_float", "_theory_mu"}


def test_arguments_are_parsed_in_one_module():
    """Every parser of user numbers is defined in gdpproof/_args.py (no _plain, _counts or
    numeric/engine/_rational beside it)."""
    outside = []
    for name, path in modules(PACKAGE).items():
        if name == "gdpproof._args":
            continue
        if name.rsplit(".", 1)[-1] in ("_plain", "_counts", "_rational"):
            outside.append(f"{path.relative_to(PACKAGE.parent)}: a parser module beside gdpproof/_args.py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level: a nested helper of the same name is not a parser
            if isinstance(node, ast.FunctionDef) and node.name in PARSER_NAMES:
                outside.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: def {node.name}")
    assert not outside, outside


# ---- one sympy -> code compiler ------------------------------------------------------------------

#: The one module that turns expressions into code (docs/architecture.md): the printers, the
#: run-time compilation of what they print, and sympy's lambdify targets.
COMPILER = "gdpproof/numeric/engine/compiler.py"
#: Names that compile or print code: sympy's lambdify and code printers, functions made from code
#: objects.  Python's compile/exec/eval called bare count too (``re.compile`` is an attribute).
COMPILING_NAMES = {"lambdify", "lambdastr", "FunctionType", "CodeType", "pycode", "sstr", "StrPrinter",
                   "PythonCodePrinter", "NumPyPrinter", "SciPyPrinter", "MpmathPrinter", "CodePrinter"}
COMPILING_BUILTINS = {"compile", "exec", "eval"}


def compiling_forms(source: str) -> list[tuple[int, str]]:
    """(line, form) of each use of a compiling name, bare compile/exec/eval call, import from
    sympy's printing or lambdify modules, and class derived from a printer."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in COMPILING_BUILTINS:
            found.append((node.lineno, f"{node.func.id}("))
        elif isinstance(node, ast.Name) and node.id in COMPILING_NAMES:
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute) and node.attr in COMPILING_NAMES:
            found.append((node.lineno, node.attr))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module or "" if isinstance(node, ast.ImportFrom) else ""
            names = [alias.name for alias in node.names]
            if module.startswith(("sympy.printing", "sympy.utilities.lambdify")) or \
                    any(n.startswith(("sympy.printing", "sympy.utilities.lambdify")) for n in names):
                found.append((node.lineno, f"import from {module or names[0]}"))
            found += [(node.lineno, n) for n in names if n.rpartition(".")[2] in COMPILING_NAMES]
        elif isinstance(node, ast.ClassDef):
            bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "" for b in node.bases]
            found += [(node.lineno, f"class {node.name}({b})") for b in bases if b.endswith("Printer")]
    return sorted(set(found))


def test_the_compiler_walker_finds_each_form():
    source = ("import re, sympy, types\nfrom sympy import lambdify\nfrom sympy.printing.pycode import pycode\n"
              "f = sympy.lambdify(x, e)\ng = compile(s, 'f', 'exec')\nexec(c)\nh = types.FunctionType(c, {})\n"
              "r = re.compile('a')\nclass P(sympy.printing.str.StrPrinter):\n    pass\nt = sympy.sstr(e)\n"
              "u = eval(s)\nv = super().eval(x)\n")
    assert compiling_forms(source) == [
        (2, "lambdify"), (3, "import from sympy.printing.pycode"), (3, "pycode"), (4, "lambdify"), (5, "compile("),
        (6, "exec("), (7, "FunctionType"), (9, "StrPrinter"), (9, "class P(StrPrinter)"), (11, "sstr"),
        (12, "eval(")]


def test_one_module_compiles_expressions():
    """Only the compiler turns expressions into code: a second compiler (a ``lambdify``, a printer,
    a ``compile``/``exec`` of text) anywhere else in gdpproof/ fails here."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel != COMPILER:
            found += [f"{rel}:{line}: {form}" for line, form in compiling_forms(path.read_text(encoding="utf-8"))]
    assert not found, "compile expressions in gdpproof/numeric/engine/compiler.py only:\n  " + "\n  ".join(found)


def test_the_compiler_is_where_the_rule_says():
    assert compiling_forms((PACKAGE.parent / COMPILER).read_text(encoding="utf-8"))


#: The builders of argument errors: a function of one of these names outside gdpproof/errors.py is a
#: second error builder (``errors.bad(name, value, rule)`` is the one).
ERROR_BUILDER_NAMES = {"bad", "_bad", "_theory_mu", "_missing"}


def test_argument_errors_are_built_in_one_place():
    """Every validator raises through gdpproof.errors.bad: no builder of argument errors beside it
    (simulation, canaries and audit/_exact each had their own)."""
    outside = _defined_outside(ERROR_BUILDER_NAMES, "gdpproof.errors")
    assert not outside, outside


def test_the_one_parser_and_error_builder_define_the_names_they_own():
    """The two rules above are not vacuous: _args.py and errors.py define what they own."""
    args = {n.name for n in ast.parse((PACKAGE / "_args.py").read_text(encoding="utf-8")).body
            if isinstance(n, ast.FunctionDef)}
    errors = {n.name for n in ast.parse((PACKAGE / "errors.py").read_text(encoding="utf-8")).body
              if isinstance(n, ast.FunctionDef)}
    assert {"positive_double", "ascii_number", "int_option", "float_option", "count", "plain_value"} <= args
    assert {"bad", "within"} <= errors


#: The few InvalidParameterError raised with a message of their own, by (file, enclosing function):
#: not about one argument's value, so ``bad(name, value, rule)`` has nothing to name.
PLAIN_MESSAGE_ALLOWED = {
    # the contents of a table being read (the argument's value would be the whole text)
    ("gdpproof/reference/table.py", "parse"),
    # the grid's size, the product of every grid argument
    ("gdpproof/reference/generate.py", "build"),
    # the resume journal's contents on disk, not an argument
    ("gdpproof/reference/generate.py", "_load_journal"),
    ("gdpproof/reference/generate.py", "_check_claim"),
    ("gdpproof/reference/_journal_key.py", "_refuse"),
    # what a user's callable returned at run time (the argument is the callable itself)
    ("gdpproof/audit/blackbox.py", "_as_float64"),
    ("gdpproof/audit/blackbox.py", "_check_outputs"),
    ("gdpproof/audit/blackbox.py", "score_of"),
    ("gdpproof/audit/mechanisms.py", "audit_mechanism"),
    # an object's own state (free symbols, not finite), not an argument of the call
    ("gdpproof/symbolic/tradeoff.py", "_numeric_params_uncached"),
    ("gdpproof/numeric/engine/evaluate.py", "expression_value"),
    ("gdpproof/_certified.py", "enclosure"),
    # which of several arguments are given: no single argument is at fault
    ("gdpproof/calibration.py", "_problem"),
    ("gdpproof/accounting/routes.py", "account"),
    # the search reached its domain's end: about the answer, not an argument's value
    ("gdpproof/calibration.py", "_settle"),
    # a mechanism spec's text or file (SpecError): a key given twice, a part that is not
    # key=value, two ways of sampling given at once, a file that cannot be read, is too large or
    # too deep, or lacks its list: about the spec's form, not one argument's value (the spec's
    # arguments are refused through errors.within(where, errors.bad(...)))
    ("gdpproof/mechanisms/specs.py", "mechanism_from_dict"),
    ("gdpproof/mechanisms/specs.py", "mechanism_from_spec"),
    ("gdpproof/mechanisms/specs.py", "mechanism_from_file"),
    ("gdpproof/mechanisms/specs.py", "_json_object"),
    ("gdpproof/mechanisms/specs.py", "_check_depth"),
}

#: The argument errors whose construction with a message of their own is looked for.
PLAIN_MESSAGE_CLASSES = ("InvalidParameterError", "SpecError")


def plain_message_errors(path: Path) -> list[tuple[int, str]]:
    """(line, enclosing function) of each ``InvalidParameterError(...)`` or ``SpecError(...)``
    called with a positional message."""
    found = []

    def walk(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(child, child.name)
                continue
            if isinstance(child, ast.Call) and child.args and (
                    getattr(child.func, "id", None) in PLAIN_MESSAGE_CLASSES
                    or getattr(child.func, "attr", None) in PLAIN_MESSAGE_CLASSES):
                found.append((child.lineno, function))
            walk(child, function)

    walk(ast.parse(path.read_text(encoding="utf-8")), "<module>")
    return found


def test_plain_message_errors_are_found(tmp_path):
    root = _write(tmp_path, {"pkg/a.py": "def f(x):\n    if x:\n        raise InvalidParameterError(f'x={x} bad')\n"
                                     "    raise errors.InvalidParameterError('y')\n"
                                     "def g(x):\n    raise InvalidParameterError(argument='x', value=x, rule='r')\n"
                                     "def h(x):\n    raise SpecError(f'{x}: bad')\n"
                                     "def k(x):\n    raise within('spec', bad('x', x, 'r'), SpecError)\n"})
    assert plain_message_errors(root / "a.py") == [(3, "f"), (4, "f"), (8, "h")]


def test_argument_errors_name_their_argument():
    """Every InvalidParameterError and SpecError is built by errors.bad (with errors.within for a
    part of a larger input, or with its fields): none with a message of its own outside
    gdpproof/errors.py, but for the short allow-list above."""
    found, used = [], set()
    for name, path in modules(PACKAGE).items():
        if name == "gdpproof.errors":
            continue
        rel = path.relative_to(PACKAGE.parent).as_posix()
        for line, function in plain_message_errors(path):
            if (rel, function) in PLAIN_MESSAGE_ALLOWED:
                used.add((rel, function))
            else:
                found.append(f"{rel}:{line} (in {function}): use errors.bad(name, value, rule)")
    assert not found, found
    assert used == PLAIN_MESSAGE_ALLOWED, f"allow-list entries no longer needed: {PLAIN_MESSAGE_ALLOWED - used}"
