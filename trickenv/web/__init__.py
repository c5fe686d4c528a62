"""Play and replay in the browser: ``trickenv serve`` (the ``web`` extra: Starlette and uvicorn).

:func:`create_app` is the ASGI app (:mod:`trickenv.web.app`), :func:`serve` runs it
with uvicorn. The page is static HTML, CSS and JavaScript in ``static/`` (no
build step); every rule stays on the server (docs/guides/web.md).
"""

from trickenv.web.app import create_app, serve

__all__ = ["create_app", "serve"]
