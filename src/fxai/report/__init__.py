"""Tables (with published values beside ours), figures and result loading for the report."""
