"""The stages of the evaluation engine, one module each; ``elenchus.modes.evaluate`` puts them together.

``modes/evaluate.py`` is the entry point (``Options``, ``Evaluation``, ``run``) and the order of the
stages; the stages live here as classes over ``state.EvaluationState`` (planning, baselines,
running, the regression search, witnesses, the report, and the reuse of stored results), each
importing only the modules below it and never ``elenchus.modes.evaluate``.
"""
