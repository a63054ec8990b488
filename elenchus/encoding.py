"""Python source text as Python itself reads it: PEP 263 coding lines and the UTF-8 BOM.

A mutant must be written back in the encoding its coding line declares, or the
interpreter reads different text than the one mutated (a latin-1 ``"café"`` written
as UTF-8 reads as ``"cafÃ©"`` and every test fails for the wrong reason).
"""

from __future__ import annotations

import codecs
import io
import os
import re
import tokenize
from pathlib import Path

_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def decode_python(data: bytes) -> str | None:
    """The text of a Python file, or None when it is not valid in the encoding it declares."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return None


def read_python(path: str | os.PathLike[str]) -> str:
    """A source file's text as Python reads it (its coding line honoured); undecodable bytes replaced, for
    readers that only look (a file that does not decode is never mutated)."""
    data = Path(path).read_bytes()
    text = decode_python(data)
    return text if text is not None else data.decode("utf-8", errors="replace")


def why_undecodable(data: bytes) -> str:
    """A sentence for the report: which encoding the file declares and where it breaks."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        if not any(_COOKIE.match(line.decode("latin-1")) for line in data.splitlines()[:2]):
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as failure:
                return f"not valid Python source: not UTF-8 and no coding line (byte {failure.start})"
        return f"its coding line is not usable ({error})"
    try:
        data.decode(encoding)
    except LookupError:
        return f"it declares the unknown encoding {encoding!r}"
    except UnicodeDecodeError as error:
        if encoding in ("utf-8", "utf-8-sig"):  # Python itself refuses to import it
            return f"not valid Python source: not UTF-8 and no coding line (byte {error.start})"
        return f"it is not valid {encoding} text (byte {error.start})"
    return "it could not be read"


def declared_encoding(text: str) -> str:
    """The encoding a coding line in the first two lines declares, else UTF-8."""
    for line in text.splitlines()[:2]:
        match = _COOKIE.match(line)
        if match:
            try:
                name = codecs.lookup(match.group(1)).name
            except LookupError:
                return "utf-8"
            return "utf-8" if name == "utf-8-sig" else name
        if line.strip() and not line.lstrip().startswith("#"):
            break
    return "utf-8"


def encode_python(text: str) -> bytes:
    """``text`` in the encoding its coding line declares (UTF-8 without one)."""
    return text.encode(declared_encoding(text))
