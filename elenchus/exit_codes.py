"""Every exit status Elenchus can return, in one place (mirrored in README)."""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0  # the job finished and produced its report or verdict; findings are not failures
    INTERNAL_ERROR = 1  # a bug in Elenchus: the message carries a pasteable trace
    INPUT_ERROR = 2  # bad input: a guard fired, an unknown revision, not a git repository
    DECISION_NEEDED = 3  # a question (such as the evaluation scope) must be answered first
    BLOCKED = 4  # cannot proceed safely: baseline red, unsafe command, snapshot unavailable
    FINDINGS = 5  # the user asked to fail on a finding class (--fail-on) and one was found
