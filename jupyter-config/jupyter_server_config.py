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
# Lab-wide setting defaults (overrides.json): JupyterLab does not ask a newcomer whether to fetch
# its news, a question the demo has no use for (and offline, no answer to).
c.LabApp.app_settings_dir = str(Path(__file__).resolve().parent / "lab-settings")
c.ServerApp.terminals_enabled = False
# notebook_shim only adapts old-style classic-notebook server extensions, none of which is used
# here; linking it reads every ServerApp setting, the deprecated ServerApp.token among them,
# which logs a DeprecationWarning at every start.
c.ServerApp.jpserver_extensions = {"notebook_shim": False}
