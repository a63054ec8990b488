"""What the runs mean: the comparison matrix, the regression search, weakening evidence, test quality, witnesses and probes."""
