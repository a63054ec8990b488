"""How a run happens: cohorts, the sandbox, fresh or warm interpreters, the pytest plugin and its records, coverage."""
