"""What to challenge: the contract, the scope question, the mutation families, candidate mutants and the plan."""
