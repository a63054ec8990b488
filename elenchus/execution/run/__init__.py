"""Run pytest in a subprocess inside a workspace and judge what the run proves.

``run_pytest`` never raises for anything the tests do: a failing, hanging or crashing
suite comes back as a ``RunResult`` whose ``execution`` says whether the run happened
properly (completed / timed-out / infrastructure-error) and whose ``records`` say what
each test did (one ``TestRecord`` per test, from the Elenchus pytest plugin).
``judge`` turns a mutant's ``RunResult`` into a ``Verdict`` (killed / survived /
timeout / not-comparable / inconclusive). A kill is *attributed* only when the
failure reached a behavioural assertion: an assertion failed, an expected exception
was not raised, or another exception surfaced while the test was checking (an
``assert``, an ``assert*`` call, a ``pytest.raises`` block) or crossed the mutated
file. Collection, import and setup errors are never kills. A run whose tests
imported the mutated module from outside the workspace proves nothing either way:
it is not-comparable.

The subprocess runs in its own session (process group) with stdin closed, output
sent to files, bytecode writing off, pytest's cache off and the environment scrubbed
of secret-looking variables. On timeout the whole group gets SIGTERM, then SIGKILL
after a short grace; nothing is left behind.

The package: ``results.py`` (the outcomes, records and verdicts), ``launch.py`` (the command, the
launchers, ``run_pytest`` and the records it reads, ``run_command``) and ``judging.py`` (``judge``).
Every name is re-exported here, so ``from elenchus.execution.run import X`` works as it did.
"""

from elenchus.execution.run.results import (Execution, FailureKind, Kill, Outcome, RunResult, TestOutcome,
                                            TestRecord, Verdict)
from elenchus.execution.run.launch import (DEFAULT_TIMEOUT_CONSTANT, FRESH, KILL_GRACE_SECONDS, LAST_WORDS_LINES,
                                           MAX_TIMEOUT_FACTOR, PLUGIN_MODULE, RECODE_MODULE, TAIL_CHARS, WARM_MODULE,
                                           CommandResult, FreshLauncher, Launch, Launcher, _stop, is_secret_variable,
                                           module_loader, pytest_command, run_command, run_environment, run_pytest,
                                           scrub_environment, timeout_for, validate_timeout_factor)
from elenchus.execution.run.judging import foreign_import, foreign_modules, import_advice, is_attributed, judge

__all__ = [
    "DEFAULT_TIMEOUT_CONSTANT", "FRESH", "KILL_GRACE_SECONDS", "LAST_WORDS_LINES", "MAX_TIMEOUT_FACTOR",
    "PLUGIN_MODULE", "RECODE_MODULE", "TAIL_CHARS", "WARM_MODULE",
    "CommandResult", "Execution", "FailureKind", "FreshLauncher", "Kill", "Launch", "Launcher", "Outcome",
    "RunResult", "TestOutcome", "TestRecord", "Verdict",
    "_stop", "foreign_import", "foreign_modules", "import_advice", "is_attributed", "is_secret_variable", "judge",
    "module_loader", "pytest_command", "run_command", "run_environment", "run_pytest", "scrub_environment",
    "timeout_for", "validate_timeout_factor",
]
