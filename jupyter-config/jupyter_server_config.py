"""Jupyter server settings for `make demo` and the browser tests.

Offline-friendly: nothing here reaches out to the network (no news, no update checks, no
extension-manager lookups), and the server starts in the repository so notebooks/ is at hand.
"""

from pathlib import Path

c = get_config()  # noqa: F821  (provided by Jupyter when it loads this file)

c.ServerApp.root_dir = str(Path(__file__).resolve().parents[1])
c.ServerApp.open_browser = False
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
c.LabApp.extension_manager = "readonly"
c.ServerApp.terminals_enabled = False
