"""Independent checkers: they share no code with the algorithms they check."""
