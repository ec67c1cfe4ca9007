"""The snippet contract, shared by the build and the tests (docs/contributing.md states it): the
declarations in a snippet's first comment lines (``# raises:``, ``# warns:``, ``# tolerance:``,
``# platform:``, ``# varies:``), and :func:`execute`, which runs a snippet under them and returns the declared
error it raised, or raises :class:`SnippetError` naming the file and line.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import linecache
import re
import signal
import sys
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from jaxbook import ROOT, book_root

DECLARATION = re.compile(r"^#\s*(raises|match|warns|warns-match|tolerance|platform|varies)\s*:(.*)$")
#: What a declaration is called in its error messages (the others by their key).
KIND = {"raises": "error", "match": "error", "warns": "warning", "warns-match": "warning"}
#: The declarations that name a class: what they name, and examples.
CLASSES = {
    "raises": ("exception", "TypeError or jax.errors.KeyReuseError"),
    "warns": ("warning", "DeprecationWarning or FutureWarning"),
}
CLASS_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
TOLERANCE = re.compile(r"^(?P<values>.*?)\s+--\s+(?P<reason>\S.*)$")
TOLERANCE_VALUE = re.compile(r"^(rtol|atol)=((?:\d+(?:\.\d*)?|\.\d+)(?:e-?\d+)?)$")
TOLERANCE_EXAMPLE = "'# tolerance: rtol=2e-3 -- float16 training: the last digits depend on the CPU'"
#: The largest tolerance a snippet may declare: past it, a printed float says nothing.
MAX_TOLERANCE = 0.05
#: The platforms a ``# platform:`` line may name: JAX's backends other than the CPU, whose output
#: the ``.out`` file is (``jax.default_backend()``: ``gpu`` for CUDA and ROCm alike).
PLATFORMS = ("gpu", "tpu")
PLATFORM = re.compile(r"^(?P<names>[\w-]+(?:\s*,\s*[\w-]+)*)\s+(?P<rest>\S.*)$")
PLATFORM_EXAMPLE = (
    "'# platform: gpu rtol=1e-5 -- XLA's GPU tanh is an approximation' or "
    "'# platform: gpu,tpu differs -- lists the machine's own devices'"
)
VARIES_EXAMPLE = (
    "'# varies: (?<=-> ).* -- the text comes from bfloat16 training, whose last bits depend on the CPU'"
)
# JAX appends this note to errors it filtered; here every library frame is gone, so it would mislead.
JAX_FILTER_NOTE = re.compile(r"-{20}\nFor simplicity, JAX has removed its internal frames[^\n]*\n?")


class SnippetError(Exception):
    """A snippet broke its contract (or its declaration is malformed)."""


class SnippetTimeout(BaseException):
    """Raised inside a snippet that ran longer than its time limit."""


def _malformed(where: str, kind: str, why: str) -> SnippetError:
    """The error for a malformed declaration of ``kind`` at ``where`` (``file:line``)."""
    return SnippetError(f"{where}: malformed {kind} declaration: {why}")


@dataclass(frozen=True)
class Declaration:
    """A declared error or warning: ``raises`` is a class path, ``match`` an optional regex."""

    raises: str
    match: str | None
    line: int

    def resolve(self, name: str) -> type[BaseException]:
        """Import the declared class; ``name`` is the snippet's display path for errors."""
        module, _, attr = self.raises.rpartition(".")
        try:
            cls = getattr(importlib.import_module(module) if module else builtins, attr, None)
        except ImportError:
            cls = None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            why = "(use a builtin name or a dotted path such as jax.errors.TracerBoolConversionError)"
            raise _malformed(
                f"{name}:{self.line}", "error", f"'{self.raises}' is not an exception class {why}"
            )
        return cls


@dataclass(frozen=True)
class PlatformDifference:
    """What a snippet declares for one platform: another output (``differs``: the reviewed
    ``<name>.<platform>.out`` when committed) or a tolerance (``rtol``, ``atol``) there."""

    platform: str
    differs: bool
    rtol: float
    atol: float
    reason: str
    line: int


@dataclass(frozen=True)
class Varies:
    """A declared varying span: output text matching ``pattern`` (a regex, applied line by line)
    is compared as ``<varies>``; ``reason`` says why, for readers."""

    pattern: str
    reason: str
    line: int


@dataclass(frozen=True)
class Shown:
    """What readers see of a snippet: its ``text`` without the declaration lines and the blank
    lines they leave at its top (``hidden``: the 1-based lines of the file left out). The kernel
    runs this text, so a reader's traceback counts the lines on screen; a message for a
    contributor names the file's line (:meth:`file_line`)."""

    text: str
    hidden: tuple[int, ...]

    def line(self, number: int) -> int:
        """The line of the shown text that is line ``number`` of the file."""
        return number - sum(1 for hidden in self.hidden if hidden < number)

    def file_line(self, number: int | str) -> int | str:
        """The line of the file that is line ``number`` of the shown text (``?`` stays ``?``)."""
        if not isinstance(number, int):
            return number
        for hidden in self.hidden:  # sorted: each one at or before the line moves it down
            if hidden <= number:
                number += 1
        return number


def shown(source: str) -> Shown:
    """What readers see of the snippet ``source`` (the one place that says which lines they do
    not see; :func:`parse_declaration` validates the declarations themselves)."""
    lines = source.splitlines(keepends=True)
    hidden = {number for number, line in enumerate(lines, start=1) if DECLARATION.match(line.strip())}
    if hidden:
        for number, line in enumerate(lines, start=1):  # the blank lines then at the top
            if number in hidden:
                continue
            if line.strip():
                break
            hidden.add(number)
    text = "".join(line for number, line in enumerate(lines, start=1) if number not in hidden)
    return Shown(text, tuple(sorted(hidden)))


def display_path(path: Path | str) -> str:
    """The path readers see: relative to the repository root when inside it."""
    path = Path(path)
    try:
        return path.resolve().relative_to(book_root()).as_posix()
    except ValueError:
        return path.as_posix()


def _header(source: str, name: str) -> dict[str, tuple]:
    """The validated declarations of ``source``, ``{key: (value, line)}``: the text of raises,
    match, warns and warns-match, ``(rtol, atol)`` for tolerance, and for platform a
    :class:`PlatformDifference` by platform named (the line is the first one's)."""
    found: dict[str, tuple] = {}
    after_code = False
    for number, line in enumerate(source.splitlines(), start=1):
        stripped = line.strip()
        after_code = after_code or bool(stripped and not stripped.startswith("#"))
        declared = DECLARATION.match(stripped)
        if not declared:
            continue
        key, value = declared.group(1), declared.group(2).strip()
        where, kind = f"{name}:{number}", KIND.get(key, key)
        if after_code:
            raise _malformed(
                where,
                kind,
                f"'# {key}:' must be in the comment block at the top of the file, before any code",
            )
        if key == "platform":
            platforms = found.setdefault(key, ({}, number))[0]
            for difference in _platforms(value, where, number):
                if difference.platform in platforms:
                    raise _malformed(where, kind, f"a second '# platform:' line for {difference.platform}")
                platforms[difference.platform] = difference
            continue
        if key in found:
            raise _malformed(where, kind, f"a second '# {key}:' line")
        if key == "tolerance":
            found[key] = (_tolerance(value, where), number)
            continue
        if key == "varies":
            found[key] = (_varies(value, where, number), number)
            continue
        if key in CLASSES and not CLASS_PATH.match(value):
            what, example = CLASSES[key]
            raise _malformed(
                where, kind, f"'# {key}:' needs one {what} class such as {example}, got {value!r}"
            )
        if key not in CLASSES and not value:
            raise _malformed(where, kind, f"empty '# {key}:' pattern")
        if key not in CLASSES:
            try:
                re.compile(value)
            except re.error as exc:
                raise _malformed(
                    where, kind, f"'# {key}:' is not a valid regular expression ({exc})"
                ) from None
        found[key] = (value, number)
    for pattern, owner in (("match", "raises"), ("warns-match", "warns")):
        if pattern in found and owner not in found:
            raise _malformed(name, KIND[owner], f"'# {pattern}:' without '# {owner}:'")
    return found


def _tolerance(
    value: str, where: str, kind: str = "tolerance", example: str = TOLERANCE_EXAMPLE
) -> tuple[float, float]:
    """``(rtol, atol)`` of a declared tolerance (``rtol=2e-3, atol=1e-6 -- reason``); raises
    :class:`SnippetError` naming ``where``, the declaration's ``kind`` and an ``example``."""
    found = TOLERANCE.match(value)
    if not found:
        raise _malformed(where, kind, f"say why after ' -- ', as in {example}")
    values = {}
    for part in found.group("values").split(","):
        pair = TOLERANCE_VALUE.match(part.strip())
        if not pair or pair.group(1) in values:
            why = f"{part.strip()!r} is not 'rtol=<number>' or 'atol=<number>' (each at most once)"
            raise _malformed(where, kind, f"{why}, as in {example}")
        values[pair.group(1)] = float(pair.group(2))
    if not 0 < max(values.values()) <= MAX_TOLERANCE:
        why = f"is not a tolerance between 0 and {MAX_TOLERANCE} (a wider one would let any value through)"
        raise _malformed(where, kind, f"{found.group('values').strip()} {why}")
    return values.get("rtol", 0.0), values.get("atol", 0.0)


def _varies(value: str, where: str, line: int) -> Varies:
    """The :class:`Varies` of a ``# varies:`` declaration's ``value`` (``<regex> -- <why>``);
    raises :class:`SnippetError` naming ``where``."""
    found = TOLERANCE.match(value)
    if not found or not found.group("values").strip():
        raise _malformed(where, "varies", f"give a regex, then ' -- ' and why, as in {VARIES_EXAMPLE}")
    pattern = found.group("values").strip()
    try:
        compiled = re.compile(pattern, re.M)
    except re.error as exc:
        raise _malformed(where, "varies", f"{pattern!r} is not a valid regular expression ({exc})") from None
    if compiled.fullmatch(""):
        raise _malformed(where, "varies", f"{pattern!r} matches the empty text: it would hide nothing")
    return Varies(pattern, found.group("reason").strip(), line)


def _platforms(value: str, where: str, line: int) -> list[PlatformDifference]:
    """What a ``# platform:`` declaration's ``value`` says for each platform it names; raises
    :class:`SnippetError` naming ``where``."""
    found = PLATFORM.match(value)
    if not found:
        why = "name the platforms, then 'differs' or a tolerance, then ' -- ' and why"
        raise _malformed(where, "platform", f"{why}, as in {PLATFORM_EXAMPLE}")
    names = [name.strip() for name in found.group("names").split(",")]
    for name in names:
        if name not in PLATFORMS:
            why = " (the .out file is the CPU's output)" if name == "cpu" else ""
            raise _malformed(where, "platform", f"{name!r} is not one of {', '.join(PLATFORMS)}{why}")
    if len(set(names)) != len(names):
        raise _malformed(where, "platform", "a platform named twice")
    rest = found.group("rest")
    reason = TOLERANCE.match(rest)
    differs = rest.split()[0] == "differs"
    if differs and (not reason or reason.group("values").strip() != "differs"):
        raise _malformed(where, "platform", f"say why after 'differs -- ', as in {PLATFORM_EXAMPLE}")
    rtol, atol = (0.0, 0.0) if differs else _tolerance(rest, where, "platform", PLATFORM_EXAMPLE)
    reason = reason.group("reason").strip()
    return [PlatformDifference(name, differs, rtol, atol, reason, line) for name in names]


def parse_platforms(source: str, name: str) -> dict[str, PlatformDifference]:
    """The ``# platform:`` declarations of the snippet ``source``, by platform."""
    return _header(source, name).get("platform", ({}, 0))[0]


def parse_varies(source: str, name: str) -> Varies | None:
    """The ``# varies:`` declaration of the snippet ``source``, or None."""
    return _header(source, name).get("varies", (None, 0))[0]


def check_varies(source: str, name: str, text: str) -> None:
    """Raise :class:`SnippetError` naming the declaration's line when the ``# varies:`` pattern
    of ``source`` matches nothing in the output ``text``: it would hide nothing, or the wrong thing."""
    varies = parse_varies(source, name)
    if varies is not None and not re.search(varies.pattern, text, re.M):
        why = f"'# varies: {varies.pattern}' matches nothing in the output"
        raise _malformed(f"{name}:{varies.line}", "varies", why)


def parse_tolerance(source: str, name: str):
    """The ``# tolerance:`` of the snippet ``source``, else :data:`jaxbook.compare.DEFAULT`, with
    its ``# varies:`` pattern."""
    from jaxbook.compare import DEFAULT, Tolerance  # not in the kernel: it never compares outputs

    header = _header(source, name)
    rtol, atol = header["tolerance"][0] if "tolerance" in header else (DEFAULT.rtol, DEFAULT.atol)
    varies = header["varies"][0].pattern if "varies" in header else None
    return Tolerance(rtol, atol, varies)


def parse_declaration(source: str, name: str, key: str = "raises") -> Declaration | None:
    """The ``# raises:`` (``key="warns"``: ``# warns:``) declaration of ``source`` with its pattern.

    Every parse validates the whole header: a malformed declaration, or one after code, raises
    :class:`SnippetError` naming ``name`` and the line, so none is ever silently ignored.
    """
    header = _header(source, name)
    if key not in header:
        return None
    pattern = header.get("match" if key == "raises" else "warns-match", (None, 0))[0]
    return Declaration(header[key][0], pattern, header[key][1])


def is_project_file(filename: str) -> bool:
    """True for a frame that readers should see: a file of this repository (not the venv)."""
    if not Path(filename).is_absolute():
        return not filename.startswith(("<", ".venv"))
    path = Path(filename).resolve()
    return path.is_relative_to(book_root()) and not (
        path.is_relative_to(ROOT / "jaxbook") or ".venv" in path.parts
    )


def trimmed_traceback(exc: BaseException) -> list[str]:
    """The traceback of ``exc`` reduced to the reader's own frames and the final error lines, with
    paths relative to the repository (no build-machine path reaches a page)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if is_project_file(f.filename)]
    for frame in frames:
        frame.filename = display_path(frame.filename)
    lines = ["Traceback (most recent call last):\n"]
    lines += traceback.format_list(frames)
    lines += traceback.format_exception_only(type(exc), exc)
    text = JAX_FILTER_NOTE.sub("", scrub("".join(lines)))
    return text.splitlines(keepends=True)


def scrub(text: str) -> str:
    """Replace absolute paths of this machine by package-relative or repository-relative ones:
    packages first (with the venv in the repository, removing the root first would leave
    ``.venvoptax/x.py``); a package path starts where a path can start and holds no colon or quote."""
    text = re.sub(r"(?<![\w.-])/[^\s:\"']*?/site-packages/", "", text)
    for root in {str(book_root()), str(ROOT)}:
        text = text.replace(root + "/", "")
    return text


def _on_alarm(signum, frame):
    raise SnippetTimeout()


#: Warnings that break the contract unless declared: the site never teaches a deprecated call.
DEPRECATIONS = (DeprecationWarning, FutureWarning)
#: Where a deprecation counts: these libraries, and the project's own files (snippets, helpers).
WATCHED = re.compile(r"[/\\]site-packages[/\\](jax|jaxlib|optax|numpy)[/\\]")


def execute(
    source: str,
    path: Path | str,
    namespace: dict | None = None,
    timeout: int | None = None,
    observed: list[str] | None = None,
) -> tuple[Declaration | None, BaseException | None]:
    """Run ``source`` (the text of the snippet at ``path``) under its contract.

    Returns ``(declaration, exception)``: the declared exception it raised, or ``None`` for a
    snippet that declares none. Raises :class:`SnippetError` otherwise. ``timeout`` (seconds) stops
    a runaway snippet at its line. Deprecations (:data:`DEPRECATIONS`) are shown as usual, checked
    against ``# warns:``, and appended to ``observed`` as ``"Class: message"``.
    """
    name = display_path(path)
    declaration = parse_declaration(source, name)
    warns = parse_declaration(source, name, "warns")
    expected = declaration.resolve(name) if declaration else None
    expected_warning = warns.resolve(name) if warns else None
    if expected_warning is not None and not issubclass(expected_warning, Warning):
        raise _malformed(f"{name}:{warns.line}", "warning", f"'{warns.raises}' is not a warning class")
    view = shown(source)
    code = compile(view.text, name, "exec")  # the text on screen: a traceback counts its lines
    # ... and quotes them: tracebacks, warnings and inspect read the source from linecache
    linecache.cache[name] = (len(view.text), None, view.text.splitlines(keepends=True), name)
    loaded = dict(sys.modules)
    raised: BaseException | None = None
    seen: list[tuple[type, str, str, int | str]] = []  # category, message, file, snippet's line
    if timeout:
        old_handler = signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(timeout)
    try:
        with warnings.catch_warnings():
            show = warnings.showwarning

            def record(message, category, filename, lineno, file=None, line=None):
                if issubclass(category, DEPRECATIONS):
                    seen.append((category, str(message), filename, _line(traceback.extract_stack(), name)))
                show(message, category, scrub(filename), lineno, file, line)  # no machine path

            warnings.showwarning = record
            for category in DEPRECATIONS:  # every occurrence, whatever ran before in this process
                warnings.simplefilter("always", category)
            with script_folder(path):
                exec(code, main_namespace(Path(path)) if namespace is None else namespace)
    except SnippetTimeout as exc:
        line = view.file_line(_line(traceback.extract_tb(exc.__traceback__), name))
        raise SnippetError(f"{name}:{line}: timed out after {timeout} s") from None
    except BaseException as exc:  # noqa: BLE001 - the contract covers every exception
        raised = exc
    finally:
        if timeout:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old_handler)
    if observed is not None:
        observed.extend(f"{category.__name__}: {scrub(message)}" for category, message, _, _ in seen)
    _check_aliases(loaded, name)
    where = name
    if raised is not None:  # the file's line: the contributor edits the file
        where = f"{name}:{view.file_line(_line(traceback.extract_tb(raised.__traceback__), name))}"
    if expected is None:
        if raised is not None:
            raise SnippetError(
                f"{where}: raised {_describe(raised)}, but the snippet declares no error. "
                f"If the error is the point of the example, add '# raises: {class_path(raised)}' "
                "at the top of the file."
            ) from raised
    elif raised is None:
        raise SnippetError(
            f"{name}:{declaration.line}: declares '# raises: {declaration.raises}' but raised nothing"
        )
    elif type(raised) is not expected:
        raise SnippetError(
            f"{where}: declares '# raises: {declaration.raises}' but raised {_describe(raised)}"
        ) from raised
    elif declaration.match and not re.search(declaration.match, str(raised)):
        raise SnippetError(
            f"{where}: raised {declaration.raises} as declared, but its message does not match "
            f"'# match: {declaration.match}'. The message was: {scrub(str(raised))}"
        ) from raised
    seen = [(category, message, filename, view.file_line(line)) for category, message, filename, line in seen]
    _check_warnings(seen, warns, expected_warning, name)
    return declaration, raised


@contextlib.contextmanager
def script_folder(path: Path | str):
    """The folder of the snippet at ``path`` on ``sys.path`` while it runs, as ``python FILE``
    has it: a snippet imports a helper of its folder by its bare name (``from _model import
    data``). Appended, not put first: no file of the folder can hide a module that JAX, NumPy or
    the book imports (tests/test_snippet_imports.py checks that no name could clash anyway)."""
    folder = str(Path(path).resolve().parent)
    added = folder not in sys.path
    if added:
        sys.path.append(folder)
    try:
        yield
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)


def book_modules(names=None) -> list[str]:
    """The modules of ``sys.modules`` (or of ``names``) loaded from the book's files: snippets,
    their helpers and practice code, by package name or by bare name (not the machinery)."""
    found = []
    for name in list(sys.modules) if names is None else names:
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if file and Path(file).is_absolute() and is_project_file(file):
            found.append(name)
    return found


def _check_aliases(before: dict, name: str) -> None:
    """Raise :class:`SnippetError` when the snippet ``name`` loaded a book file that is already a
    module under another name (``_model`` and ``snippets.training._model``): two copies of one
    module, each with its own state, which a reader's script never has."""
    new = book_modules(set(sys.modules) - set(before))
    if not new:
        return
    files: dict[Path, list[str]] = {}
    for module in book_modules():
        files.setdefault(Path(sys.modules[module].__file__).resolve(), []).append(module)
    for file, modules in files.items():
        if len(modules) > 1 and set(modules) & set(new):
            names = " and ".join(f"'{m}'" for m in sorted(modules))
            raise SnippetError(
                f"{name}: {display_path(file)} is imported as both {names} in one page: two copies "
                "of one module. Import it one way: a helper of the snippet's own folder by its bare "
                "name (from _helper import ...), any other by its package path."
            )


def _check_warnings(seen: list, warns: Declaration | None, expected: type | None, name: str) -> None:
    """Enforce ``# warns:`` on the deprecations ``seen``: an undeclared one from a watched file
    fails, and so does a declaration that nothing raised."""
    declared = False
    for category, message, filename, line in seen:
        if category is expected and (not warns.match or re.search(warns.match, message)):
            declared = True
        elif WATCHED.search(filename) or not filename.startswith(("/", "<")) or is_project_file(filename):
            raise SnippetError(
                f"{name}:{line}: {class_path(category)} while the snippet ran: "
                f"{scrub(message).strip()}. Replace the deprecated call; if showing the "
                f"deprecation is the point, add '# warns: {class_path(category)}' at the top "
                "of the file."
            )
    if expected is not None and not declared:
        pattern = f" matching '# warns-match: {warns.match}'" if warns.match else ""
        raise SnippetError(
            f"{name}:{warns.line}: declares '# warns: {warns.raises}' but no "
            f"{warns.raises}{pattern} was raised"
        )


def _line(frames: traceback.StackSummary, name: str) -> int | str:
    """The line of the snippet ``name`` last in ``frames`` (``?`` when it is not there)."""
    lines = [f.lineno for f in frames if f.filename == name]
    return lines[-1] if lines else "?"


#: JAX's modules whose classes it exports elsewhere: the path a snippet declares.
PUBLIC_MODULES = {"jax._src.errors": "jax.errors"}
#: Classes JAX raises but exports nowhere, which a snippet declares by their private path
#: (tests/test_upstream.py checks that each still resolves there, and that no other is declared).
PRIVATE_CLASSES = {"jax._src.core.ShardingTypeError"}


def class_path(error: BaseException | type) -> str:
    """How a snippet names the class of ``error`` (an exception or a class) in a declaration."""
    cls = error if isinstance(error, type) else type(error)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    public = PUBLIC_MODULES.get(cls.__module__, cls.__module__)
    return f"{public}.{cls.__qualname__}"


def _describe(exc: BaseException) -> str:
    message = scrub(str(exc)).strip().splitlines()
    return f"{class_path(exc)}: {message[0]}" if message else class_path(exc)


@contextlib.contextmanager
def restored_state():
    """Undo what a snippet changed in JAX's configuration and NumPy's print options, so one
    snippet cannot change the next one's output when several run in one process."""
    import jax
    import numpy

    config = dict(jax.config.values)
    print_options = numpy.get_printoptions()
    try:
        yield
    finally:
        for name, value in config.items():
            if jax.config.values.get(name) != value:
                jax.config.update(name, value)
        numpy.set_printoptions(**print_options)


def source_of(path: Path) -> str:
    """Read a snippet file as the build shows it."""
    return path.read_text(encoding="utf-8")


def main_namespace(path: Path) -> dict:
    """A fresh ``__main__``-like namespace, as ``python FILE`` would give."""
    return {"__name__": "__main__", "__file__": str(path), "__builtins__": builtins}
