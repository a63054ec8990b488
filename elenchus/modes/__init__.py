"""The modes as library entry points: each runs a whole review and returns its exit code.

``commands/`` only turns command-line options into a mode's ``Options``; ``scoring.py`` and
hosted mode call the modes directly.
"""
