"""The chat: ``AgentChat`` (traits and the public API), its link to the views (the session's
listener, the request routes, the trait refresh), threads and agents, export, and the kernel side of
generative UI."""
