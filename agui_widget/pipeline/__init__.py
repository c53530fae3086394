"""The event pipeline an AG-UI stream goes through before it reaches the transcript, one module per
step, in the order ``@ag-ui/client`` runs them (compatibility, schema enforcement, chunks,
surrogates, verification, reduction), plus the event log a chat keeps and recordings of runs."""
