"""The snippet contract, shared by the build and the tests (docs/contributing.md states it): the
declarations in a snippet's first comment lines (``# raises:``, ``# warns:``, ``# tolerance:``,
``# platform:``), and :func:`execute`, which runs a snippet under them and returns a declared
error's trimmed traceback or raises :class:`SnippetError`, naming the file.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import re
import signal
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from jaxbook import ROOT, book_root

DECLARATION = re.compile(r"^#\s*(raises|match|warns|warns-match|tolerance|platform)\s*:(.*)$")
# JAX appends this note to errors it filtered; here every library frame is gone, so it would mislead.
JAX_FILTER_NOTE = re.compile(r"-{20}\nFor simplicity, JAX has removed its internal frames[^\n]*\n?")
CLASS_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class SnippetError(Exception):
    """A snippet broke its contract (or its declaration is malformed)."""


class SnippetTimeout(BaseException):
    """Raised inside a snippet that ran longer than its time limit."""


@dataclass(frozen=True)
class Declaration:
    """The error a snippet declares: ``raises`` is a class path, ``match`` an optional regex."""

    raises: str
    match: str | None
    line: int

    def resolve(self, name: str) -> type[BaseException]:
        """Import the declared class; ``name`` is the snippet's display path for errors."""
        path = self.raises
        if "." not in path:
            cls = getattr(builtins, path, None)
        else:
            module, _, attr = path.rpartition(".")
            try:
                cls = getattr(importlib.import_module(module), attr, None)
            except ImportError:
                cls = None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise SnippetError(
                f"{name}:{self.line}: malformed error declaration: "
                f"'{path}' is not an exception class (use a builtin name or a dotted path "
                "such as jax.errors.TracerBoolConversionError)"
            )
        return cls


def display_path(path: Path | str) -> str:
    """The path readers see: relative to the repository root when inside it."""
    path = Path(path)
    try:
        return path.resolve().relative_to(book_root()).as_posix()
    except ValueError:
        return path.as_posix()


def _header(source: str, name: str) -> dict[str, tuple[str, int]]:
    """The declarations of ``source``: ``{key: (value, line)}`` for raises, match, warns,
    warns-match and tolerance, and ``platform:<name>`` for each platform a ``# platform:`` line
    names, validated (placement, duplicates, class paths, patterns, values)."""
    found_keys: dict[str, tuple[str, int]] = {}
    in_header = True
    for number, line in enumerate(source.splitlines(), start=1):
        stripped = line.strip()
        found = DECLARATION.match(stripped)
        if stripped and not stripped.startswith("#"):
            in_header = False
        if not found:
            continue
        key, value = found.group(1), found.group(2).strip()
        where = f"{name}:{number}"
        kind = {"warns": "warning", "warns-match": "warning", "tolerance": "tolerance"}.get(key, key)
        kind = "error" if kind in ("raises", "match") else kind
        if not in_header:
            raise SnippetError(
                f"{where}: malformed {kind} declaration: '# {key}:' must be in the comment block "
                "at the top of the file, before any code"
            )
        if key == "platform":
            for platform in _platform_values(value, where)[0]:
                if f"platform:{platform}" in found_keys:
                    raise SnippetError(
                        f"{where}: malformed platform declaration: a second '# platform:' line for {platform}"
                    )
                found_keys[f"platform:{platform}"] = (value, number)
            continue
        if key in found_keys:
            raise SnippetError(f"{where}: malformed {kind} declaration: a second '# {key}:' line")
        if key == "tolerance":
            _tolerance_values(value, where)
        elif key in ("raises", "warns"):
            if not CLASS_PATH.match(value):
                example = (
                    "TypeError or jax.errors.KeyReuseError"
                    if key == "raises"
                    else "DeprecationWarning or FutureWarning"
                )
                raise SnippetError(
                    f"{where}: malformed {kind} declaration: '# {key}:' needs one "
                    f"{'exception' if key == 'raises' else 'warning'} class such as {example}, "
                    f"got {value!r}"
                )
        else:
            if not value:
                raise SnippetError(f"{where}: malformed {kind} declaration: empty '# {key}:' pattern")
            try:
                re.compile(value)
            except re.error as exc:
                raise SnippetError(
                    f"{where}: malformed {kind} declaration: '# {key}:' is not a valid "
                    f"regular expression ({exc})"
                ) from None
        found_keys[key] = (value, number)
    for pattern, owner, kind in (("match", "raises", "error"), ("warns-match", "warns", "warning")):
        if pattern in found_keys and owner not in found_keys:
            raise SnippetError(f"{name}: malformed {kind} declaration: '# {pattern}:' without '# {owner}:'")
    return found_keys


TOLERANCE = re.compile(r"^(?P<values>.*?)\s+--\s+(?P<reason>\S.*)$")
TOLERANCE_VALUE = re.compile(r"^(rtol|atol)=([0-9.]+(?:e-?[0-9]+)?)$")
#: The largest tolerance a snippet may declare: past it, a printed float says nothing.
MAX_TOLERANCE = 0.05


def _tolerance_values(
    value: str, where: str, kind: str = "tolerance", example: str = ""
) -> tuple[float, float]:
    """``(rtol, atol)`` of a ``# tolerance:`` declaration's ``value`` (``rtol=2e-3, atol=1e-6 --
    reason``); raises :class:`SnippetError` naming ``where`` (and the declaration's ``kind``,
    with its ``example``). (Plain numbers: the kernel reads headers too, and never imports
    :mod:`jaxbook.compare`.)"""
    example = example or "'# tolerance: rtol=2e-3 -- float16 training: the last digits depend on the CPU'"
    found = TOLERANCE.match(value)
    if not found:
        raise SnippetError(f"{where}: malformed {kind} declaration: say why after ' -- ', as in {example}")
    values = {}
    for part in found.group("values").split(","):
        pair = TOLERANCE_VALUE.match(part.strip())
        if not pair or pair.group(1) in values:
            raise SnippetError(
                f"{where}: malformed {kind} declaration: {part.strip()!r} is not 'rtol=<number>' "
                f"or 'atol=<number>' (each at most once), as in {example}"
            )
        values[pair.group(1)] = float(pair.group(2))
    if not 0 < max(values.values()) <= MAX_TOLERANCE or min(values.values()) < 0:
        raise SnippetError(
            f"{where}: malformed {kind} declaration: {found.group('values').strip()} is not a "
            f"tolerance between 0 and {MAX_TOLERANCE} (a wider one would let any value through)"
        )
    return values.get("rtol", 0.0), values.get("atol", 0.0)


#: The platforms a ``# platform:`` line may name: JAX's backends other than the CPU, whose output
#: the ``.out`` file is (``jax.default_backend()``: ``gpu`` for CUDA and ROCm alike).
PLATFORMS = ("gpu", "tpu")
PLATFORM = re.compile(r"^(?P<names>[\w-]+(?:\s*,\s*[\w-]+)*)\s+(?P<rest>\S.*)$")
PLATFORM_EXAMPLE = (
    "'# platform: gpu rtol=1e-5 -- XLA's GPU tanh is an approximation' or "
    "'# platform: gpu,tpu differs -- lists the machine's own devices'"
)


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


def _platform_values(value: str, where: str) -> tuple[list[str], bool, float, float, str]:
    """``(platforms, differs, rtol, atol, reason)`` of a ``# platform:`` declaration's ``value``;
    raises :class:`SnippetError` naming ``where``."""
    found = PLATFORM.match(value)
    if not found:
        raise SnippetError(
            f"{where}: malformed platform declaration: name the platforms, then 'differs' or a "
            f"tolerance, then ' -- ' and why, as in {PLATFORM_EXAMPLE}"
        )
    names = [name.strip() for name in found.group("names").split(",")]
    for name in names:
        if name not in PLATFORMS:
            why = " (the .out file is the CPU's output)" if name == "cpu" else ""
            raise SnippetError(
                f"{where}: malformed platform declaration: {name!r} is not one of {', '.join(PLATFORMS)}{why}"
            )
    if len(set(names)) != len(names):
        raise SnippetError(f"{where}: malformed platform declaration: a platform named twice")
    rest = found.group("rest")
    reason = TOLERANCE.match(rest)
    if rest.split()[0] == "differs":
        if not reason or reason.group("values").strip() != "differs":
            raise SnippetError(
                f"{where}: malformed platform declaration: say why after 'differs -- ', as in "
                f"{PLATFORM_EXAMPLE}"
            )
        return names, True, 0.0, 0.0, reason.group("reason").strip()
    rtol, atol = _tolerance_values(rest, where, "platform", PLATFORM_EXAMPLE)
    return names, False, rtol, atol, TOLERANCE.match(rest).group("reason").strip()


def parse_platforms(source: str, name: str) -> dict[str, PlatformDifference]:
    """The ``# platform:`` declarations of the snippet ``source``, by platform (validated as the
    other declarations are: :class:`SnippetError` naming ``name`` and the line)."""
    found = {}
    for key, (value, line) in _header(source, name).items():
        if key.startswith("platform:"):
            _, differs, rtol, atol, reason = _platform_values(value, f"{name}:{line}")
            platform = key.partition(":")[2]
            found[platform] = PlatformDifference(platform, differs, rtol, atol, reason, line)
    return found


def parse_tolerance(source: str, name: str):
    """The tolerance of the snippet ``source``: its ``# tolerance:`` declaration, else
    :data:`jaxbook.compare.DEFAULT`. Raises :class:`SnippetError` naming ``name`` and the line for
    a malformed declaration (same placement rules as ``# raises:``)."""
    from jaxbook.compare import DEFAULT, Tolerance  # not in the kernel: it never compares outputs

    header = _header(source, name)
    if "tolerance" not in header:
        return DEFAULT
    value, line = header["tolerance"]
    rtol, atol = _tolerance_values(value, f"{name}:{line}")
    return Tolerance(rtol=rtol, atol=atol)


def parse_declaration(source: str, name: str) -> Declaration | None:
    """Read the ``# raises:`` / ``# match:`` header of ``source``.

    Raises :class:`SnippetError` naming ``name`` and the line for a malformed declaration.
    Only the leading comment block counts; a ``# raises:`` comment after code is an error too,
    so a misplaced declaration can never be silently ignored.
    """
    header = _header(source, name)
    if "raises" not in header:
        return None
    raises, line = header["raises"]
    return Declaration(raises, header.get("match", (None, 0))[0], line)


def parse_warning(source: str, name: str) -> Declaration | None:
    """Read the ``# warns:`` / ``# warns-match:`` header of ``source`` (same rules as errors)."""
    header = _header(source, name)
    if "warns" not in header:
        return None
    warns, line = header["warns"]
    return Declaration(warns, header.get("warns-match", (None, 0))[0], line)


def is_project_file(filename: str) -> bool:
    """True for a frame that readers should see: a file of this repository (not the venv)."""
    if filename.startswith("<"):
        return False
    path = Path(filename)
    if not path.is_absolute():
        return not filename.startswith(".venv")
    path = path.resolve()
    if path.is_relative_to(ROOT / "jaxbook") or ".venv" in path.parts:
        return False
    return path.is_relative_to(book_root())


def trimmed_traceback(exc: BaseException) -> list[str]:
    """The traceback of ``exc`` reduced to the reader's own frames and the final error lines.

    Frames from JAX, the standard library and this machinery are dropped; paths are shown
    relative to the repository, so no build-machine path reaches a page.
    """
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if is_project_file(f.filename)]
    for frame in frames:
        frame.filename = display_path(frame.filename)
    lines = ["Traceback (most recent call last):\n"]
    lines += traceback.format_list(frames)
    lines += traceback.format_exception_only(type(exc), exc)
    text = JAX_FILTER_NOTE.sub("", scrub("".join(lines)))
    return text.splitlines(keepends=True)


def scrub(text: str) -> str:
    """Replace absolute paths of this machine by package-relative or repository-relative ones.

    Packages first: with the venv inside the repository, removing the root first would turn
    ``<root>/.venv/lib/python3.12/site-packages/optax/x.py`` into ``.venvoptax/x.py``. A package
    path starts where a path can start, not inside a word, and holds no colon or quote
    (``snippets/x.py:3:/usr/lib/...``)."""
    text = re.sub(r"(?<![\w.-])/[^\s:\"']*?/site-packages/", "", text)
    for root in {str(book_root()), str(ROOT)}:
        text = text.replace(root + "/", "")
    return text


def _on_alarm(signum, frame):
    raise SnippetTimeout()


#: Warnings that break the contract unless declared: the site never teaches a deprecated call.
DEPRECATIONS = (DeprecationWarning, FutureWarning)
#: Libraries whose deprecations count (besides the project's own files: snippets and helpers).
WATCHED_LIBRARIES = ("jax", "jaxlib", "optax", "numpy")
_LIBRARY_FILE = re.compile(r"[/\\]site-packages[/\\]({})[/\\]".format("|".join(WATCHED_LIBRARIES)))


def _watched(filename: str) -> bool:
    """True when a warning attributed to ``filename`` comes from a watched library or from
    the project's own code (a snippet or a helper that called something deprecated)."""
    return (
        bool(_LIBRARY_FILE.search(filename))
        or is_project_file(filename)
        or not filename.startswith(("/", "<"))
    )


def execute(
    source: str,
    path: Path | str,
    namespace: dict | None = None,
    timeout: int | None = None,
    observed: list[str] | None = None,
) -> tuple[Declaration | None, BaseException | None]:
    """Run ``source`` (the text of the snippet at ``path``) and enforce the contract.

    Returns ``(declaration, exception)``: the exception is the declared one that was raised,
    or ``None`` for a snippet that declares nothing. Raises :class:`SnippetError` otherwise.
    ``timeout`` (seconds) stops a runaway snippet with an error naming the line it was on.
    Deprecation warnings (:data:`DEPRECATIONS`) are shown as usual and checked against the
    ``# warns:`` declaration; each one seen is appended to ``observed`` as ``"Class: message"``.
    """
    name = display_path(path)
    declaration = parse_declaration(source, name)
    warns = parse_warning(source, name)
    expected = declaration.resolve(name) if declaration else None
    expected_warning = warns.resolve(name) if warns else None
    if expected_warning is not None and not issubclass(expected_warning, Warning):
        raise SnippetError(
            f"{name}:{warns.line}: malformed warning declaration: '{warns.raises}' is not a warning class"
        )
    code = compile(source, name, "exec")
    if namespace is None:
        namespace = {"__name__": "__main__", "__file__": str(path)}
    raised: BaseException | None = None
    old_handler = None
    seen: list[tuple[warnings.WarningMessage, int | str]] = []
    if timeout:
        old_handler = signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(timeout)
    try:
        with warnings.catch_warnings():
            show = warnings.showwarning

            def record(message, category, filename, lineno, file=None, line=None):
                if issubclass(category, DEPRECATIONS):
                    lines = [f.lineno for f in traceback.extract_stack() if f.filename == name]
                    seen.append(
                        (
                            warnings.WarningMessage(message, category, filename, lineno),
                            lines[-1] if lines else "?",
                        )
                    )
                show(message, category, scrub(filename), lineno, file, line)  # no machine path

            warnings.showwarning = record
            for category in DEPRECATIONS:  # every occurrence, whatever ran before in this process
                warnings.simplefilter("always", category)
            exec(code, namespace)
    except SnippetTimeout as exc:
        raise SnippetError(f"{name}:{_last_line(exc, name)}: timed out after {timeout} s") from None
    except BaseException as exc:  # noqa: BLE001 - the contract covers every exception
        raised = exc
    finally:
        if timeout:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old_handler)
    if observed is not None:
        observed.extend(f"{w.category.__name__}: {scrub(str(w.message))}" for w, _ in seen)
    where = f"{name}:{_last_line(raised, name)}" if raised else name
    if expected is None:
        if raised is not None:
            raise SnippetError(
                f"{where}: raised {_describe(raised)}, but the snippet declares no error. "
                f"If the error is the point of the example, add '# raises: {_class_path(raised)}' "
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
    _check_warnings(seen, warns, expected_warning, name)
    return declaration, raised


def _check_warnings(seen: list, warns: Declaration | None, expected: type | None, name: str) -> None:
    """Enforce the ``# warns:`` part of the contract on the deprecations ``seen``."""
    declared = []
    for w, line in seen:
        if (
            expected is not None
            and w.category is expected
            and (not warns.match or re.search(warns.match, str(w.message)))
        ):
            declared.append(w)
            continue
        if not _watched(w.filename):
            continue
        raise SnippetError(
            f"{name}:{line}: {_class_path_of(w.category)} while the snippet ran: "
            f"{scrub(str(w.message)).strip()}. Replace the deprecated call; if showing the "
            f"deprecation is the point, add '# warns: {_class_path_of(w.category)}' at the top "
            "of the file."
        )
    if expected is not None and not declared:
        pattern = f" matching '# warns-match: {warns.match}'" if warns.match else ""
        raise SnippetError(
            f"{name}:{warns.line}: declares '# warns: {warns.raises}' but no "
            f"{warns.raises}{pattern} was raised"
        )


def _class_path_of(cls: type) -> str:
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _last_line(exc: BaseException, name: str) -> int | str:
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == name]
    return lines[-1] if lines else "?"


def _class_path(exc: BaseException) -> str:
    cls = type(exc)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    public = {"jax._src.errors": "jax.errors"}.get(cls.__module__, cls.__module__)
    return f"{public}.{cls.__qualname__}"


def _describe(exc: BaseException) -> str:
    message = scrub(str(exc)).strip().splitlines()
    first = message[0] if message else ""
    return f"{_class_path(exc)}: {first}" if first else _class_path(exc)


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


__all__ = [
    "Declaration",
    "SnippetError",
    "display_path",
    "execute",
    "main_namespace",
    "parse_declaration",
    "parse_platforms",
    "parse_tolerance",
    "parse_warning",
    "restored_state",
    "scrub",
    "source_of",
    "trimmed_traceback",
]
