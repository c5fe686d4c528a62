"""The ASGI app of ``trickenv serve``: the page, its static files and a JSON API (Starlette on uvicorn).

Routes (every error is ``{"error": message}`` with a 4xx status and changes nothing):

=========================================  ==========================================================
``GET /``                                  the page (sets the session cookie)
``GET /static/...``                        its script and style (no build step)
``GET /api/games``                         games, their options, the agents a page may seat
``POST /api/spec``                         ``{game, options}`` -> players, the agents that fit (checks the options)
``POST /api/play``                         ``{game, options, seat, opponents, deals, seed}``: a new table;
                                           ``{..., watch: true, agents}``: agents in every seat, to watch
``POST /api/play/step``                    watching: the next agent's move
``GET /api/play``                          the session's table as the person sees it
``POST /api/play/move``                    ``{action}``: the person's move, then the agents'
``POST /api/play/hint``                    the search's value of each of your legal moves (asked only)
``POST /api/play/review``                  ``{deal?, seat?}``: each decision of a seat in a finished deal
``GET /api/play/records``                  the finished deals as a records file (``trickenv review``, Replay)
``POST /api/replay``                       ``{file, game?, options?}``: open records (the file's text)
``GET /api/replay/{id}/{deal}/{step}``     one frame of a replayed deal, every hand face up
``POST /api/replay/{id}/{deal}/review``    ``{seat?, seed?}``: the review of a replayed deal
=========================================  ==========================================================

The rules live in the engine only: the page shows what the server says is
legal and sends every click back; the server answers a move that is not legal
with the reason the terminal gives (``you must follow suit: ...``).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Awaitable, Callable, Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from trickenv.web.sessions import (IDLE_SECONDS, MAX_SESSIONS, PlayTable, Replay, RequestError, Session, Sessions,
                                   fitting_agents, game_options, games_info)

COOKIE = "trickenv_session"
MAX_BODY = 32 * 1024 * 1024  # bytes of a request body (a records file of ~20,000 deals)
STATIC = resources.files("trickenv.web") / "static"


def create_app(max_sessions: int = MAX_SESSIONS, idle_seconds: float = IDLE_SECONDS,
               agents: Sequence[str] = ()) -> Starlette:
    """The app; ``max_sessions`` sessions at most (a new browser beyond them gets a 503 until one expires),
    each expiring after ``idle_seconds`` without a request; ``agents``: more agent names a page may seat (the
    server's operator chose them: your own, ``sb3:PATH``, ``model:PATH``)."""
    sessions = Sessions(max_sessions, idle_seconds)
    extra = tuple(agents)
    info = games_info(extra)

    def handler(fn: Callable[[Request, Session], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
        """Session cookie in, JSON out; RequestError -> its 4xx, a broken body -> 400."""
        async def endpoint(request: Request) -> Response:
            sid = request.cookies.get(COOKIE)
            try:
                sid, session = sessions.get(sid)
                result = await fn(request, session)
                response: Response = result if isinstance(result, Response) else JSONResponse(result)
            except RequestError as e:
                response = JSONResponse({"error": str(e)}, status_code=e.status)
            if sid is not None and request.cookies.get(COOKIE) != sid:
                response.set_cookie(COOKIE, sid, httponly=True, samesite="strict")
            return response
        return endpoint

    async def body(request: Request) -> dict[str, Any]:
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > MAX_BODY:
            raise RequestError(f"the request is {int(size):,} bytes; at most {MAX_BODY:,} are accepted", 413)
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise RequestError(f"the request is {len(raw):,} bytes; at most {MAX_BODY:,} are accepted", 413)
        try:
            data = json.loads(raw or b"{}")
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise RequestError(f"the request body is not JSON: {e}") from None
        if not isinstance(data, dict):
            raise RequestError("the request body must be a JSON object")
        return data

    async def page(request: Request, session: Session) -> Response:
        return FileResponse(str(STATIC / "index.html"), media_type="text/html")

    async def games(request: Request, session: Session) -> Any:
        return info

    async def spec(request: Request, session: Session) -> Any:
        data = await body(request)
        import trickenv

        options = game_options(data.get("game"), data.get("options"))
        s = trickenv.make_spec(data["game"], **options)
        agents = await run_in_threadpool(fitting_agents, s, extra)
        return {"game": s.name, "players": s.num_players, "agents": agents}

    async def play_new(request: Request, session: Session) -> Any:
        data = await body(request)
        table = await run_in_threadpool(PlayTable, data, extra)  # the agents may move first: off the event loop
        session.table = table
        return await run_in_threadpool(table.state)

    def current(session: Session) -> PlayTable:
        if session.table is None:
            raise RequestError(session.missing("no table in this session: start a game first"), 404)
        return session.table

    async def play_state(request: Request, session: Session) -> Any:
        return await run_in_threadpool(current(session).state)

    async def play_move(request: Request, session: Session) -> Any:
        data = await body(request)
        table = current(session)
        if "action" not in data:
            raise RequestError("a move needs 'action': the id of a legal action (the page sends it)")
        await run_in_threadpool(table.move, data["action"])
        return await run_in_threadpool(table.state)

    async def play_step(request: Request, session: Session) -> Any:
        await body(request)
        table = current(session)
        await run_in_threadpool(table.step)
        return await run_in_threadpool(table.state)

    async def play_hint(request: Request, session: Session) -> Any:
        await body(request)
        return await run_in_threadpool(current(session).hint)

    async def play_records(request: Request, session: Session) -> Any:
        doc = await run_in_threadpool(current(session).records)
        return JSONResponse(doc, headers={"content-disposition": 'attachment; filename="trickenv-deals.json"'})

    async def play_review(request: Request, session: Session) -> Any:
        data = await body(request)
        return await run_in_threadpool(current(session).review, data)

    async def replay_review(request: Request, session: Session) -> Any:
        data = await body(request)
        p = request.path_params
        return await run_in_threadpool(session.replay(p["rid"]).review, p["deal"], data)

    async def replay_open(request: Request, session: Session) -> Any:
        from trickenv.replay import load_records

        data = await body(request)
        file = data.get("file")
        if isinstance(file, str):
            try:
                file = json.loads(file)
            except json.JSONDecodeError as e:
                raise RequestError(f"the file is not JSON: {e}") from None
        if file is None:
            raise RequestError("open a record: 'file' must hold the file's text (or its JSON)")
        game = data.get("game") or None
        options = None
        if game is not None:
            options = game_options(game, data.get("options"))
        try:
            records = await run_in_threadpool(load_records, file, game, options)
        except (ValueError, TypeError) as e:
            raise RequestError(f"cannot open the records: {e}", 422) from None
        rid = session.add_replay(Replay(records))
        return session.replays[rid].summary(rid)

    async def replay_frame(request: Request, session: Session) -> Any:
        p = request.path_params
        replay = session.replay(p["rid"])
        return await run_in_threadpool(replay.frame, p["deal"], p["step"])

    async def not_found(request: Request, session: Session) -> Any:
        raise RequestError(f"no such API route: {request.method} {request.url.path}", 404)

    routes = [
        Route("/", handler(page)),
        Route("/api/games", handler(games)),
        Route("/api/spec", handler(spec), methods=["POST"]),
        Route("/api/play", handler(play_new), methods=["POST"]),
        Route("/api/play", handler(play_state), methods=["GET"]),
        Route("/api/play/move", handler(play_move), methods=["POST"]),
        Route("/api/play/step", handler(play_step), methods=["POST"]),
        Route("/api/play/hint", handler(play_hint), methods=["POST"]),
        Route("/api/play/review", handler(play_review), methods=["POST"]),
        Route("/api/play/records", handler(play_records), methods=["GET"]),
        Route("/api/replay", handler(replay_open), methods=["POST"]),
        Route("/api/replay/{rid}/{deal}/review", handler(replay_review), methods=["POST"]),
        Route("/api/replay/{rid}/{deal}/{step}", handler(replay_frame)),
        Route("/api/{rest:path}", handler(not_found), methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    async def http_error(request: Request, exc: Exception) -> Response:
        # Starlette's own answers (no such path, a method a route does not take, a missing static file) as the
        # API's errors: JSON with a message.
        status = getattr(exc, "status_code", 404)
        what = {404: "no such page", 405: "method not allowed"}.get(status, getattr(exc, "detail", "error"))
        return JSONResponse({"error": f"{what}: {request.method} {request.url.path}"}, status_code=status)

    return Starlette(routes=routes, exception_handlers={HTTPException: http_error})


def serve(host: str = "127.0.0.1", port: int = 8765, agents: Sequence[str] = (), max_sessions: int = MAX_SESSIONS,
          idle_seconds: float = IDLE_SECONDS) -> None:
    """Run the app with uvicorn until Ctrl-C (``trickenv serve``); the arguments are :func:`create_app`'s."""
    import uvicorn

    print(f"trickenv: serving on http://{host}:{port}/ (Ctrl-C stops)")
    uvicorn.run(create_app(max_sessions, idle_seconds, agents), host=host, port=port, log_level="warning")
