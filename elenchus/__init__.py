"""Elenchus: challenge a test suite with plausible misunderstandings of intent."""

__version__ = "0.2.0"
