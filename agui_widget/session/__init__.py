"""The session: one chat's transcript and state, the queue and the run loop, what a run waits for
(frontend and Python tools, interrupts), and closing a run on stop or error. It speaks only AG-UI to
an adapter and knows no widget: the chat is its listener."""
