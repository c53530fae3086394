"""Thread stores: where a chat (or a server) keeps each thread's transcript and state between
kernels: in memory, in SQLite, or in PostgreSQL."""
