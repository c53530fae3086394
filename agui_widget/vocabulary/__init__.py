"""The vocabulary every stage shares: message content, ids, marks, delta events, errors, hooks, the
names of CUSTOM events, JSON Patch for state, lone surrogates, and rich display."""
