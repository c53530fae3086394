"""Browser tests: the chat in a real JupyterLab and Notebook 7, in Debian's Chromium (see docs/testing.md)."""
