"""Why a candidate is rejected before it runs: arid code, equivalence at a bound, and the compiled program.

Arid sites (docstrings, annotations, display-only dunders, logging and output calls, exception
messages, a command's help text, module metadata, debug- and log-only branches, script blocks),
strict/inclusive bound swaps that no input can tell apart, and updates that change nothing (``flag &= True``)
are refused from the syntax tree; ``_compile``
and ``_fingerprint`` let the builder refuse mutants that do not compile or compile to the original's (or
an earlier mutant's) code.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from types import CodeType

import libcst as cst

from elenchus.mutation.families import REMOVE, Site, SourceView

# ------------------------------------------------------------------------- rejection

_DISPLAY_DUNDERS = frozenset({"__repr__", "__str__", "__format__", "__rich_repr__"})
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical",
                          "fatal", "log"})
_DEBUG_FLAGS = frozenset({"__debug__", "DEBUG", "TYPE_CHECKING"})
#: Keyword arguments whose text a command-line parser only shows (``add_argument(..., help='...')``,
#: ``metavar='FILE'``, ``ArgumentParser(prog='sqlformat', usage='%(prog)s [OPTIONS] FILE')``).
_HELP_KEYWORDS = frozenset({"help", "description", "epilog", "usage", "prog", "metavar", "title"})
#: Calls of a command-line parser whose help text may be computed (``help='one of {}'.format(', '.join(CHOICES))``:
#: all of that expression only builds the text), and those whose positional texts are help text too
#: (``parser.add_argument_group('Formatting Options')``: its title and description).
_PARSER_CALLS = frozenset({"add_argument", "add_argument_group", "ArgumentParser", "add_parser", "add_subparsers",
                           "add_option", "OptionParser", "add_option_group"})
_TITLED_CALLS = frozenset({"add_argument_group", "add_option_group"})
_STRINGS = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


def _arid_reason(view: SourceView, site: Site, faked: frozenset[str] = frozenset()) -> str | None:
    """Why the site sits in code whose mutation no client could notice, or None. ``faked``: the environment
    checks the tests set themselves (``environment_faked``), which a test run here can change."""
    if _is_docstring(view, site.target) or _is_docstring(view, site.anchor):
        return "arid: docstring"
    in_string = isinstance(site.target, _STRINGS)
    previous: cst.CSTNode | None = None
    for node in (site.anchor, *view.ancestors(site.anchor)):
        if isinstance(node, (cst.FormattedString, cst.ConcatenatedString)):
            in_string = True
        if isinstance(node, cst.Annotation):
            return "arid: type annotation"
        if isinstance(node, cst.FunctionDef) and node.name.value in _DISPLAY_DUNDERS:
            return f"arid: inside `{node.name.value}`, which only formats text for display"
        if isinstance(node, cst.Call) and _is_log_call(view, node):
            return f"arid: inside the logging or output call `{view.code(node.func)}(...)`"
        if isinstance(node, cst.Arg) and previous is node.value and in_string and _typing_name(view, node):
            return "arid: the name a type variable or new type gives itself, which only type checkers and its repr read"
        if isinstance(node, cst.Arg) and previous is node.value and _help_text(view, node, in_string):
            named = f"`{node.keyword.value}=`" if node.keyword is not None else "an option group's title"
            return f"arid: help text a command shows its user ({named})"
        if isinstance(node, cst.Raise) and in_string and previous is not None:
            return "arid: message text of a raised exception"
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and in_string and previous is not None \
                and previous is node.value and _raised_only(view, node):
            return "arid: message text of a raised exception"
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and _dunder_target(node):
            return f"arid: `{_dunder_target(node)}` is module metadata, not behaviour"
        if isinstance(node, (cst.If, cst.IfExp, cst.While)) and previous is node.test \
                or isinstance(node, cst.Assign) and previous is node.value and isinstance(view.parent(
                    view.parent(node)), cst.Module) and all(isinstance(part, cst.Comparison)
                                                            for part in _conditions(node.value)):
            gate = _environment_gate(view, site.target, node.value if isinstance(node, cst.Assign) else node.test,
                                     faked)
        elif isinstance(node, cst.If) and site.target is node:  # the whole guard dropped: `if PY2: return ...`
            gate = _environment_gate(view, node.test, node.test, faked)
        else:
            gate = None
        if gate is not None:
            return (f"arid: chooses code by the interpreter or platform it runs on (`{gate}`); the mutant "
                    "makes this environment run what was written for another, which no test here is "
                    "meant to check")
        if isinstance(node, cst.If) and (previous is None or previous is node.test
                                         or previous is node.body):
            if _is_debug_flag(node.test):
                return f"arid: debug-only branch `if {view.code(node.test)}:`"
            if _is_script_guard(node.test):
                return "unreachable by clients: runs only as a script (`if __name__ == '__main__':`)"
        previous = node
    return None


#: What says which interpreter or platform the code runs on: ``sys.version_info``, ``os.name``,
#: ``platform.system()``.
_ENVIRONMENT = {"sys": frozenset({"version_info", "version", "hexversion", "platform", "implementation", "byteorder",
                                  "api_version"}),
                "os": frozenset({"name"}),
                "platform": frozenset({"system", "python_implementation", "python_version", "python_version_tuple",
                                       "machine", "release", "architecture"})}
#: The names compatibility modules give such a check (``PY2``, ``PY38``, ``IS_PYPY``, ``compat.WINDOWS``); one
#: the module itself assigns anything else (``LINUX = "linux"``, a build target to compare with) is a value.
_ENVIRONMENT_NAME = re.compile(r"(?:IS_|ON_)?(?:PY_?\d+|PYTHON_?\d+|PYPY|CPYTHON|JYTHON|WINDOWS|WIN32|MACOS|OSX|"
                               r"DARWIN|LINUX|POSIX)|(?:IS_|ON_)WIN")


def _environment_gate(view: SourceView, target: cst.CSTNode, test: cst.BaseExpression,
                      faked: frozenset[str] = frozenset()) -> str | None:
    """``test`` as written, when the part of it the edit changes only asks which interpreter or platform this is
    (``sys.version_info >= (3, 10)``, ``PY2``, ``sys.platform == 'win32'``), else None.

    ``test`` is split at ``and``, ``or`` and ``not`` into conditions; those the edit changes (the one holding
    ``target``, or every one inside it) must each read the environment: ``x > 3 or sys.platform == 'win32'``
    keeps ``x > 3`` a condition like any other; so does one reading a check the tests set (``faked``)."""
    aliases, values = _environment_names(view)
    changed: cst.CSTNode = target
    for node in (target, *view.ancestors(target)):  # the smallest condition, or group of them, holding the edit
        changed = node
        if node is test or isinstance(node, (cst.Comparison, cst.BooleanOperation)) \
                or isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            break
    read = [_environment_read(view, part, aliases, values) for part in _conditions(changed)]
    if read and all(read) and not faked.intersection(*read):
        return view.code(test)
    return None


def _conditions(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The conditions ``and``, ``or`` and ``not`` join in ``node``."""
    if isinstance(node, cst.BooleanOperation):
        return _conditions(node.left) + _conditions(node.right)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return _conditions(node.expression)
    return [node] if isinstance(node, cst.BaseExpression) else []


def _environment_read(view: SourceView, node: cst.CSTNode, aliases: frozenset[str],
                      values: frozenset[str] = frozenset()) -> set[str]:
    """The environment checks ``node`` reads: ``sys.platform``, or a name standing for one (``PY2``) that is not
    one of the module's own ``values``."""
    found, stack = set(), [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Attribute) and isinstance(current.value, cst.Name) \
                and current.attr.value in _ENVIRONMENT.get(current.value.value, ()):
            found.add(f"{current.value.value}.{current.attr.value}")
            continue
        if isinstance(current, cst.Attribute) and _ENVIRONMENT_NAME.fullmatch(current.attr.value):
            found.add(current.attr.value)
        if isinstance(current, cst.Name) and (current.value in aliases or current.value not in values
                                              and _ENVIRONMENT_NAME.fullmatch(current.value)) \
                and not (isinstance(view.parent(current), cst.Attribute) and view.parent(current).attr is current):
            found.add(current.value)
        stack.extend(current.children)
    return found


def environment_faked(texts: Iterable[str]) -> frozenset[str]:
    """The environment checks the tests set themselves, as ``_environment_read`` names them: ``sys.platform``
    patched (``monkeypatch.setattr(sys, "platform", "win32")``, ``mock.patch("sys.platform", ...)``,
    ``sys.platform = ...``), or a name of one given as text or assigned (``setattr(compat, "PY2", True)``).
    Their conditions are tested here, so mutating them is not arid."""
    found = set()
    for text in texts:
        for module, attributes in _ENVIRONMENT.items():
            for attribute in attributes:
                if re.search(rf"""["']{module}\.{attribute}["']|\b{module}\s*,\s*["']{attribute}["']"""
                             rf"""|\b{module}\.{attribute}\s*=(?!=)""", text):
                    found.add(f"{module}.{attribute}")
        found.update(re.findall(r"""["'](?:[\w.]*\.)?(\w+)["']""", text))
        found.update(re.findall(r"""\b(\w+)\s*=(?!=)""", text))
    return frozenset(found)


#: Per parsed module, what ``_environment_names`` read from it (each of its sites asks again).
_NAMES_READ: weakref.WeakKeyDictionary[SourceView, tuple[frozenset[str], frozenset[str]]] = \
    weakref.WeakKeyDictionary()


def _environment_names(view: SourceView) -> tuple[frozenset[str], frozenset[str]]:
    """Module-level names that stand for an environment check: imported from ``sys`` (``from sys import
    version_info``), or assigned a comparison of one (``_lzip_strict = sys.version_info >= (3, 10)``); and the
    module-level names assigned anything else, which are values whatever they are called."""
    known = _NAMES_READ.get(view)
    if known is not None:
        return known
    found: set[str] = set()
    values: set[str] = set()
    for line in view.module.body:
        for statement in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(statement, cst.ImportFrom) and isinstance(statement.module, cst.Name) \
                    and statement.module.value == "sys" and not isinstance(statement.names, cst.ImportStar):
                found.update((alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name)
                              else alias.name.value) for alias in statement.names
                             if isinstance(alias.name, cst.Name) and alias.name.value in _ENVIRONMENT["sys"])
            elif isinstance(statement, cst.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0].target, cst.Name) and _conditions(statement.value) \
                    and all(isinstance(part, cst.Comparison) and _environment_read(view, part, frozenset(found))
                            for part in _conditions(statement.value)):
                found.add(statement.targets[0].target.value)
            elif isinstance(statement, (cst.Assign, cst.AnnAssign)) and (
                    statement.value is None or not _environment_read(view, statement.value, frozenset(found))):
                targets = statement.targets if isinstance(statement, cst.Assign) else [statement]
                values.update(target.target.value for target in targets if isinstance(target.target, cst.Name))
    names = _NAMES_READ[view] = frozenset(found), frozenset(values)
    return names


def _help_text(view: SourceView, arg: cst.Arg, in_string: bool) -> bool:
    """Is ``arg`` help text a command shows: a text given to a help keyword (``help='...'``), anything a parser's
    call is given there (the text it computes), or an option group's title or description, given positionally."""
    call = view.parent(arg)
    func = call.func if isinstance(call, cst.Call) else None
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    if arg.keyword is None:
        return in_string and name in _TITLED_CALLS
    return arg.keyword.value in _HELP_KEYWORDS and (in_string or name in _PARSER_CALLS)


#: Typing constructs whose first argument is only their own name (``T = TypeVar("T")``).
_TYPING_CALLS = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple", "NewType"})


def _typing_name(view: SourceView, arg: cst.Arg) -> bool:
    """Is ``arg`` the name given to ``TypeVar``, ``ParamSpec``, ``TypeVarTuple`` or ``NewType`` (its first
    positional argument)?"""
    call = view.parent(arg)
    if not isinstance(call, cst.Call) or not call.args or call.args[0] is not arg or arg.keyword is not None:
        return False
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return name in _TYPING_CALLS


def _raised_only(view: SourceView, node: cst.Assign | cst.AnnAssign) -> bool:
    """Is ``node`` a function's message for an exception: it assigns one name (``msg = f"..."``), which the
    function reads only inside ``raise`` statements (``raise ValueError(msg)``), as linters that forbid
    string literals in ``raise`` ask code to write it?"""
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    function = view.function(node)
    if len(targets) != 1 or not isinstance(targets[0], cst.Name) or function is None:
        return False
    name, reads = targets[0].value, 0
    stack: list[tuple[cst.CSTNode, bool]] = [(function.body, False)]
    while stack:
        current, raised = stack.pop()
        if isinstance(current, cst.Name) and current.value == name and current is not targets[0]:
            parent = view.parent(current)
            stored = isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) and \
                getattr(parent, "target", None) is current
            if not stored and not raised:
                return False  # read somewhere else: printed, returned, logged, compared
            reads += not stored
        stack.extend((child, raised or isinstance(current, cst.Raise)) for child in current.children)
    return reads > 0


def _dunder_target(node: cst.Assign | cst.AnnAssign) -> str | None:
    """``__all__``, ``__version__``, ``__author__``...: the assigned dunder name, else None."""
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    for target in targets:
        if isinstance(target, cst.Name) and target.value.startswith("__") and target.value.endswith("__"):
            return target.value
    return None


def _is_docstring(view: SourceView, node: cst.CSTNode) -> bool:
    if not isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return False
    expr = view.parent(node)
    line = view.parent(expr) if isinstance(expr, cst.Expr) else None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return False
    holder = view.parent(line)
    if isinstance(holder, cst.Module):
        return bool(holder.body) and holder.body[0] is line
    if isinstance(holder, cst.IndentedBlock) and holder.body[0] is line:
        return isinstance(view.parent(holder), (cst.FunctionDef, cst.ClassDef))
    return False


def _is_log_call(view: SourceView, call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Name):
        return func.value in ("print", "warn", "pprint")
    if not isinstance(func, cst.Attribute):
        return False
    method, receiver = func.attr.value, view.code(func.value)
    if method == "warn" and receiver == "warnings":
        return True
    if method == "write" and receiver in ("sys.stdout", "sys.stderr"):
        return True
    if method in _LOG_METHODS:
        last = receiver.rsplit(".", 1)[-1]
        return "log" in last.lower()
    return False


def _is_debug_flag(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.Name):
        return test.value in _DEBUG_FLAGS
    if isinstance(test, cst.Attribute):
        return test.attr.value in _DEBUG_FLAGS
    # `if logger.isEnabledFor(logging.DEBUG):` guards what only a log shows
    return isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) \
        and test.func.attr.value == "isEnabledFor"


def _is_script_guard(test: cst.BaseExpression) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = {test.left, target.comparator}
    names = {s.value for s in sides if isinstance(s, cst.Name)}
    strings = {s.evaluated_value for s in sides if isinstance(s, cst.SimpleString)}
    return names == {"__name__"} and strings == {"__main__"}


# ----------------------------------------------------------------------- equivalence

_STRICT_PAIRS = ({cst.LessThan, cst.LessThanEqual}, {cst.GreaterThan, cst.GreaterThanEqual})
#: Operands whose evaluation has no side effect, so evaluating them once more or once less is harmless.
_PURE = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString, cst.Comparison, cst.UnaryOperation,
         cst.BooleanOperation)


def _boundary_equivalent(view: SourceView, site: Site) -> str | None:
    """Why moving a bound between strict and inclusive cannot change behaviour, or None.

    ``A < B`` and ``A <= B`` differ only when ``A == B``. When the branch the condition
    picks then yields one side and the other branch yields the other side (``if v > hi:
    return hi`` followed by ``return v``; ``a if a < b else b``; ``if v > hi: v = hi``),
    both give the same value there, so no input can tell the mutant apart.
    """
    if site.replacement is REMOVE or not any(
            type(site.target) in pair and type(site.replacement) in pair for pair in _STRICT_PAIRS):
        return None
    target = view.parent(site.target)
    comparison = view.parent(target) if isinstance(target, cst.ComparisonTarget) else None
    if not isinstance(comparison, cst.Comparison) or len(comparison.comparisons) != 1:
        return None
    left, right = _text(view, comparison.left), _text(view, comparison.comparisons[0].comparator)
    sides = {left, right}
    if len(sides) != 2:
        return None
    test = comparison
    parent = view.parent(test)
    while isinstance(parent, cst.BooleanOperation):  # `hi is not None and v > hi`: same question
        if not all(isinstance(side, _PURE) for side in (parent.left, parent.right)):
            return None
        test, parent = parent, view.parent(parent)
    outcomes = _branch_values(view, parent, test)
    if outcomes is None or {_text(view, value) for value in outcomes} != sides:
        return None
    return (f"equivalent at the boundary: when `{left}` equals `{right}` both branches give the same "
            "value, so no input can tell the bounds apart")


#: An update by the identity of its operator: ``flag &= True`` leaves a bool as it was.
_IDENTITIES = {cst.BitAndAssign: "True", cst.BitOrAssign: "False", cst.BitXorAssign: "False"}
#: Where a name is bound other than by ``name = <a bool>`` or ``name &= <a bool>``: it may hold anything.
_OTHER_BINDINGS = (cst.Param, cst.AsName, cst.NameItem, cst.CompFor, cst.For, cst.NamedExpr, cst.Del, cst.Element,
                   cst.StarredElement, cst.ExceptHandler)


def _idle_update(view: SourceView, site: Site) -> str | None:
    """Why the mutant only touches what changes nothing, or None: ``flag &= True`` dropped, where ``flag`` only
    ever holds a bool in its function (validators' ``optional_segments &= True``, kept to show a query was looked
    at), or the condition of an ``if`` with no ``else`` that runs nothing else, negated (its calls run as
    before) or, where it only compares names by identity (``if value is None:``), edited."""
    dropped = site.replacement is REMOVE or isinstance(site.replacement, cst.Pass) or isinstance(
        site.replacement, cst.SimpleStatementLine) and isinstance(_only_statement(site.replacement), cst.Pass)
    if dropped:
        statement = _only_statement(site.target) if not isinstance(site.target, cst.AugAssign) else site.target
        if _does_nothing(view, statement):
            return (f"equivalent: `{_text(view, statement)}` changes nothing (`{statement.target.value}` only ever "
                    "holds True or False), so dropping it cannot be seen")
        return None
    holder, inside = None, site.target
    for node in view.ancestors(site.target):  # (the `if` whose condition holds the site: `==` of `a == b`)
        if isinstance(node, (cst.If, cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.Lambda)):
            holder = node if isinstance(node, cst.If) and node.test is inside else None
            break
        inside = node
    if holder is None or holder.orelse is not None:
        return None
    body = holder.body.body if isinstance(holder.body, cst.IndentedBlock) else (holder.body,)
    steps = [_only_statement(line) for line in body]
    if not steps or not all(_does_nothing(view, step) for step in steps):
        return None
    negated = site.target is holder.test and isinstance(site.replacement, cst.UnaryOperation) and isinstance(
        site.replacement.operator, cst.Not) and _bare(site.replacement.expression).deep_equals(_bare(site.target))
    if not negated and not (_plain(holder.test) and _plain(site.replacement)):
        return None
    return (f"equivalent: the `if` only runs `{_text(view, steps[0])}`, which changes nothing, so which way its "
            "condition goes cannot be seen")


def _bare(node: cst.CSTNode) -> cst.CSTNode:
    """``node`` without the parentheses around it."""
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


def _does_nothing(view: SourceView, node: cst.CSTNode | None) -> bool:
    """Is ``node`` an update by its operator's identity (``flag &= True``) of a name its function only binds to
    a bool?"""
    if not isinstance(node, cst.AugAssign) or not isinstance(node.target, cst.Name) \
            or not isinstance(node.value, cst.Name) or _IDENTITIES.get(type(node.operator)) != node.value.value:
        return False
    function = view.function(node)
    if function is None or not isinstance(function.body, cst.IndentedBlock):
        return False
    name = node.target.value
    # bound to a bool by a statement of the function's own block before the one holding the update: never unbound
    # there (dropping an update of an unbound name would drop its UnboundLocalError)
    top = list(function.body.body)
    holding = next((i for i, statement in enumerate(top)
                    if statement is node or any(a is statement for a in view.ancestors(node))), None)
    first = next((i for i, statement in enumerate(top) if isinstance(_only_statement(statement), cst.Assign)
                  and any(isinstance(t.target, cst.Name) and t.target.value == name
                          for t in _only_statement(statement).targets)), None)
    if holding is None or first is None or first >= holding:
        return False
    for other in (n for n in view.all_nodes() if isinstance(n, cst.Name) and n.value == name):
        if function not in view.ancestors(other):
            continue
        parent = view.parent(other)
        if isinstance(parent, cst.AssignTarget):
            assign = view.parent(parent)
            if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or not _boolean(assign.value):
                return False
        elif isinstance(parent, (cst.AnnAssign, cst.AugAssign)) and parent.target is other:
            if parent.value is None or not _boolean(parent.value) or isinstance(parent, cst.AugAssign) \
                    and type(parent.operator) not in _IDENTITIES:
                return False
        elif isinstance(parent, _OTHER_BINDINGS):
            return False
    return True


def _boolean(node: cst.BaseExpression) -> bool:
    """Does ``node`` always give a bool: ``True``, ``bool(...)``, ``not ...``, ``and``/``or`` of those? (Not a
    comparison: ``a < b`` gives whatever ``__lt__`` returns.)"""
    if isinstance(node, cst.Name):
        return node.value in ("True", "False")
    if isinstance(node, cst.Call):
        return isinstance(node.func, cst.Name) and node.func.value == "bool"
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not)
    if isinstance(node, cst.BooleanOperation):
        return _boolean(node.left) and _boolean(node.right)
    return False


def _plain(node: cst.CSTNode) -> bool:
    """Is ``node`` a name, a literal, an identity comparison of those or one of its operators: something whose
    evaluation runs nobody's code, so that an edit of it changes no call and no exception? (Truth values are not:
    ``if items and flag:`` made ``or`` skips ``items.__bool__``, which a NumPy array raises from; nor are ``==`` and
    ``<``, which call the operands' methods.)"""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.Is, cst.IsNot)):
        return True  # (an operator is what the mutant puts in place of one: `is` made `is not`)
    if isinstance(node, cst.Comparison):
        return _plain(node.left) and all(isinstance(part.operator, (cst.Is, cst.IsNot)) and _plain(part.comparator)
                                         for part in node.comparisons)
    return False


def _text(view: SourceView, node: cst.CSTNode) -> str:
    return " ".join(view.module.code_for_node(node).split())


def _branch_values(view: SourceView, holder: cst.CSTNode | None, test: cst.CSTNode) -> tuple | None:
    """The two values a condition chooses between: (if true, if false), or None when not that simple."""
    if isinstance(holder, cst.IfExp) and holder.test is test:
        return holder.body, holder.orelse
    if not isinstance(holder, cst.If) or holder.test is not test:
        return None
    body = _only_statement(holder.body)
    if isinstance(body, cst.Assign) and len(body.targets) == 1:  # `if v > hi: v = hi`: a no-op at equality
        return body.targets[0].target, body.value
    if not isinstance(body, cst.Return) or body.value is None:
        return None
    if holder.orelse is not None:
        other = _only_statement(holder.orelse.body) if isinstance(holder.orelse, cst.Else) else None
    else:
        block = view.parent(holder)
        siblings = list(block.body) if isinstance(block, (cst.IndentedBlock, cst.Module)) else []
        index = next((i for i, node in enumerate(siblings) if node is holder), None)
        following = siblings[index + 1] if index is not None and index + 1 < len(siblings) else None
        other = _only_statement(following) if following is not None else None
    if not isinstance(other, cst.Return) or other.value is None:
        return None
    return body.value, other.value


def _only_statement(node: cst.CSTNode) -> cst.CSTNode | None:
    """The single small statement of a block or statement line, else None."""
    if isinstance(node, cst.IndentedBlock):
        if len(node.body) != 1:
            return None
        node = node.body[0]
    if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and len(node.body) == 1:
        return node.body[0]
    return None



def _compile(source: str, path: str, shift: int = 0) -> tuple[CodeType | None, str]:
    """``shift``: what to add to a line of ``source`` to name it in the file (a window's delta)."""
    try:
        return compile(source, path, "exec", dont_inherit=True), ""
    except (SyntaxError, ValueError) as error:
        message = getattr(error, "msg", None) or str(error)
        line = getattr(error, "lineno", None)
        return None, f"{message} at line {line + shift}" if line else message


def _fingerprint(code: CodeType) -> tuple[object, ...]:
    """What a code object computes, line numbers aside: equal fingerprints, same program.

    Compares bytecode, names, local names and constants, recursing into nested code
    objects. Constants are tagged with their type: 0, 0.0 and False compare equal in
    Python but are different programs.
    """
    return (code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
            tuple(_const_fingerprint(c) for c in code.co_consts))


def _const_fingerprint(value: object) -> object:
    if isinstance(value, CodeType):
        return ("code", _fingerprint(value))
    if isinstance(value, tuple):
        return ("tuple", tuple(_const_fingerprint(v) for v in value))
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(_const_fingerprint(v)) for v in value)))
    return (type(value).__name__, repr(value))
