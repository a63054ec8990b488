"""Reports for other tools: the mutation-testing report (Stryker's format) and its HTML view,
SARIF for code scanning, and CI annotations. Each is derived from the evaluation report alone,
plus the Head text of the files it names."""
