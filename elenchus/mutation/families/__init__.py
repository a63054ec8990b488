"""Intent-driven mutation families: each one a plausible misunderstanding of intent.

A family finds the *sites* in a parsed module where its misunderstanding could be
made, and for each site says three things in the user's terms, built from
templates that name the concrete code:

- ``changed_intent``: what the programmer would have misunderstood;
- ``incident``: what a user of the code would suffer;
- ``expected_detection``: what a test must assert to notice.

Sites may sit anywhere in a module: in functions, in class bodies and in module-level
code. A site inside a module- or class-level assignment is named after what it assigns
("`MAX_RETRIES`", "`Config.retries`"), see ``SourceView.who``.

Families never apply their edits and never decide whether a site is worth running:
``elenchus.mutation.mutate`` applies exactly one site at a time and rejects arid or
equivalent mutants. No user-facing text here names an operator class.

Every family satisfies the ``Family`` protocol and is listed in ``FAMILIES``, an
explicit registry (no entry points). Each carries its own before/after examples,
which the unit tests run.

The package: ``base`` holds the records, ``SourceView`` and the helpers the families share;
``comparisons``, ``control``, ``calls``, ``strings`` and ``values`` hold the families by group;
this module keeps the registry, whose order is presentation order.
"""

from __future__ import annotations

from elenchus.mutation.families.base import (
    Example, Family, REMOVE, Site, SourceView, code_features, may_apply,
)
from elenchus.mutation.families.calls import (
    BaseClassInstance, BypassedCall, DroppedChainStep, DroppedCopy, MissingNormalization,
    SwappedArguments,
)
from elenchus.mutation.families.comparisons import (
    AndOrConfusion, AnyAllConfusion, BoundaryInclusivity, EqualityInversion, LoopSkipsEdge,
    MembershipInversion, MinMaxConfusion, NoneCheckInversion, OffByOne,
)
from elenchus.mutation.families.control import (
    BroadenedHandler, DefaultReturn, DroppedGuard, LostSideEffect, NegatedCondition, SwallowedException,
)
from elenchus.mutation.families.strings import RegexSlip, WrongSeparator
from elenchus.mutation.families.values import ChangedDefault, ChangedEntryValue, ConstantDrift, DroppedEntry

__all__ = [
    "Example",
    "FAMILIES",
    "Family",
    "REMOVE",
    "Site",
    "SourceView",
]

#: The registry: every intent-driven family, by key. Order is presentation order.
FAMILIES: dict[str, Family] = {
    family.key: family
    for family in (
        BoundaryInclusivity(),
        OffByOne(),
        NegatedCondition(),
        DroppedGuard(),
        SwallowedException(),
        BroadenedHandler(),
        DefaultReturn(),
        LostSideEffect(),
        SwappedArguments(),
        ChangedDefault(),
        AndOrConfusion(),
        AnyAllConfusion(),
        MinMaxConfusion(),
        MembershipInversion(),
        NoneCheckInversion(),
        EqualityInversion(),
        MissingNormalization(),
        BypassedCall(),
        DroppedChainStep(),
        DroppedCopy(),
        BaseClassInstance(),
        RegexSlip(),
        WrongSeparator(),
        DroppedEntry(),
        ChangedEntryValue(),
        ConstantDrift(),
        LoopSkipsEdge(),
    )
}
