"""What a run gives the agent from the notebook besides the transcript: tools (declared frontend
tools, Python tools and their schemas, and running a Python tool's call), attachments, and live
context."""
