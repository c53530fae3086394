"""A served app lets in only who it should: bearer tokens (one shared, or one per user), a hook of
the deployment's own (a reverse proxy's header), refusals as JSON 401/403 before any body is read
or any stream starts, and threads scoped to the user who made them, in every store."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import EventType, RunAgentInput
from fastapi import HTTPException, Request

from agui_widget import AgentChat, MemoryThreadStore
from agui_widget.adapters import DemoAgent
from agui_widget.server import create_app
from agui_widget.server._cli import read_tokens

from .live_server import live_server, serve_command
from .support import make_input, text_of, user
from .test_server import body, parse_sse

TOKENS = {"alice": "tok-alice-7f3a", "bob": "tok-bob-91c2"}


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}", "accept": "text/event-stream"}


def fresh_input(text: str, messages: list[dict[str, Any]] | None = None, state: Any = None) -> RunAgentInput:
    """A run of a thread of its own (unless ``messages`` continue one, given with its id below)."""
    run_input = make_input([*(messages or []), user(text)], state=state)
    return run_input.model_copy(update={"thread_id": f"thread-{uuid.uuid4().hex[:8]}"})


def client_of(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agents.test")


async def test_no_token_is_401_a_wrong_token_403_and_the_right_one_streams() -> None:
    app = create_app(DemoAgent(delay=0), auth="s3cret-token")
    async with client_of(app) as client:
        missing = await client.post("/", json=body(make_input("hello")))
        not_bearer = await client.post("/", json=body(make_input("hello")), headers={"authorization": "Basic czNjcmV0"})
        wrong = await client.post("/", json=body(make_input("hello")), headers=bearer("guess"))
        right = await client.post("/", json=body(make_input("weather in Rome")), headers=bearer("s3cret-token"))
    for refused in (missing, not_bearer):
        assert refused.status_code == 401
        assert refused.headers["content-type"] == "application/json"
        assert refused.headers["www-authenticate"].startswith("Bearer")
        assert "Authorization: Bearer" in refused.json()["detail"]
    assert wrong.status_code == 403 and wrong.headers["content-type"] == "application/json"
    assert "not valid" in wrong.json()["detail"]
    assert right.status_code == 200 and right.headers["content-type"].startswith("text/event-stream")
    assert "Rome" in text_of(parse_sse(right.text))


async def test_every_route_but_health_needs_the_token() -> None:
    app = create_app(DemoAgent(delay=0), auth=TOKENS, store=MemoryThreadStore())
    async with client_of(app) as client:
        assert (await client.get("/health")).status_code == 200  # load balancers probe it without credentials
        for path in ("/agents", "/threads", "/threads/anything", "/openapi.json", "/docs"):
            assert (await client.get(path)).status_code == 401, path
        assert (await client.post("/agents/demo", json=body(make_input("hi")))).status_code == 401
        assert (await client.get("/agents", headers=bearer(TOKENS["bob"]))).status_code == 200


async def test_a_refused_request_is_answered_before_its_body_is_read() -> None:
    app = create_app(DemoAgent(delay=0), auth="s3cret-token", max_body_bytes=1000)
    read: list[int] = []
    big = b'{"threadId": "t", "padding": "' + b"x" * 5000 + b'"}'

    async def chunks() -> Any:
        for start in range(0, len(big), 500):
            read.append(start)
            yield big[start : start + 500]

    async with client_of(app) as client:
        response = await client.post("/", content=chunks(), headers={"content-type": "application/json"})
        allowed = await client.post("/", content=big, headers={**bearer("s3cret-token"), "content-type": "application/json"})
    assert response.status_code == 401  # not 413: a stranger learns nothing and costs nothing
    assert allowed.status_code == 413  # the same body with the token meets the size limit
    assert len(read) <= 1


async def test_a_hook_reads_a_reverse_proxys_header() -> None:
    def from_proxy(request: Request) -> str | None:
        return request.headers.get("x-forwarded-user")

    app = create_app(DemoAgent(delay=0), auth=from_proxy, store=MemoryThreadStore())
    run = fresh_input("add buy milk")
    async with client_of(app) as client:
        assert (await client.post("/", json=body(run))).status_code == 401
        answered = await client.post("/", json=body(run), headers={"x-forwarded-user": "carol"})
        listing = (await client.get("/threads", headers={"x-forwarded-user": "carol"})).json()["threads"]
    assert answered.status_code == 200 and parse_sse(answered.text)[-1].type == EventType.RUN_FINISHED
    assert [t["threadId"] for t in listing] == [run.thread_id]


async def test_a_hook_may_refuse_with_its_own_words_and_a_broken_hook_lets_nobody_in() -> None:
    async def only_staff(request: Request) -> str:
        if request.headers.get("x-role") != "staff":
            raise HTTPException(403, "Staff only.")
        return "staff-1"

    def broken(request: Request) -> str:
        raise RuntimeError("the directory is down")

    def no_id(request: Request) -> Any:
        return 42

    async with client_of(create_app(DemoAgent(delay=0), auth=only_staff)) as client:
        refused = await client.get("/agents", headers={"x-role": "student"})
        admitted = await client.get("/agents", headers={"x-role": "staff"})
    assert (refused.status_code, refused.json()) == (403, {"detail": "Staff only."})
    assert admitted.status_code == 200
    for hook in (broken, no_id):
        async with client_of(create_app(DemoAgent(delay=0), auth=hook)) as client:
            failed = await client.post("/", json=body(make_input("hi")))
        assert failed.status_code == 500 and "who you are" in failed.json()["detail"]


async def test_cors_stays_closed_unless_configured_and_preflights_pass_the_auth() -> None:
    preflight = {
        "origin": "http://class.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
    }
    async with client_of(create_app(DemoAgent(delay=0), auth="tok")) as client:
        closed = await client.options("/", headers=preflight)
        refused = await client.post("/", json=body(make_input("hi")), headers={"origin": "http://class.example"})
    assert "access-control-allow-origin" not in closed.headers
    assert "access-control-allow-origin" not in refused.headers
    async with client_of(create_app(DemoAgent(delay=0), auth="tok", cors_origins=["http://class.example"])) as client:
        opened = await client.options("/", headers=preflight)
        unauthorized = await client.post("/", json=body(make_input("hi")), headers={"origin": "http://class.example"})
        elsewhere = await client.options("/", headers={**preflight, "origin": "http://evil.example"})
    assert opened.status_code == 200 and opened.headers["access-control-allow-origin"] == "http://class.example"
    # the browser can read the 401 (and so tell its user), because CORS wraps the auth
    assert unauthorized.status_code == 401 and unauthorized.headers["access-control-allow-origin"] == "http://class.example"
    assert elsewhere.status_code == 400 and "access-control-allow-origin" not in elsewhere.headers


def test_tokens_must_be_usable() -> None:
    for bad in ({}, {"alice": ""}, {"alice": "has space"}, {"": "tok"}, {"alice": "same", "bob": "same"}):
        with pytest.raises(ValueError):
            create_app(DemoAgent(delay=0), auth=bad)
    with pytest.raises(TypeError, match="auth= takes"):
        create_app(DemoAgent(delay=0), auth=42)  # type: ignore[arg-type]


async def test_a_user_can_neither_list_read_nor_continue_another_users_thread(thread_store: Any) -> None:
    app = create_app(DemoAgent(delay=0), auth=TOKENS, store=thread_store)
    alices = fresh_input("add buy milk")
    async with client_of(app) as client:
        assert (await client.post("/", json=body(alices), headers=bearer(TOKENS["alice"]))).status_code == 200
        bobs = fresh_input("add call mum")
        assert (await client.post("/", json=body(bobs), headers=bearer(TOKENS["bob"]))).status_code == 200
        alice_list = (await client.get("/threads", headers=bearer(TOKENS["alice"]))).json()["threads"]
        bob_list = (await client.get("/threads", headers=bearer(TOKENS["bob"]))).json()["threads"]
        saved = (await client.get(f"/threads/{alices.thread_id}", headers=bearer(TOKENS["alice"]))).json()
        read = await client.get(f"/threads/{alices.thread_id}", headers=bearer(TOKENS["bob"]))
        takeover = alices.model_copy(
            update={"messages": [*alices.messages, *make_input("delete everything").messages], "run_id": "run-bob"}
        )
        continued = await client.post("/", json=body(takeover), headers=bearer(TOKENS["bob"]))
        after = (await client.get(f"/threads/{alices.thread_id}", headers=bearer(TOKENS["alice"]))).json()
    assert [t["threadId"] for t in alice_list] == [alices.thread_id]
    assert [t["threadId"] for t in bob_list] == [bobs.thread_id]
    assert saved["state"] == {"todos": [{"text": "buy milk", "done": False}]}
    assert read.status_code == 403 and "another user" in read.json()["detail"]
    assert continued.status_code == 403 and continued.headers["content-type"] == "application/json"  # never a stream
    assert after["messages"] == saved["messages"]  # nothing of bob's reached alice's thread
    assert thread_store.owner(alices.thread_id) == "alice" and thread_store.owner(bobs.thread_id) == "bob"


async def test_without_auth_threads_are_everyones_as_before() -> None:
    store = MemoryThreadStore()
    app = create_app(DemoAgent(delay=0), store=store)
    first = fresh_input("add buy milk")
    async with client_of(app) as client:
        await client.post("/", json=body(first))
        listing = (await client.get("/threads")).json()["threads"]
        read = await client.get(f"/threads/{first.thread_id}")
    assert [t["threadId"] for t in listing] == [first.thread_id] and read.status_code == 200
    assert store.owner(first.thread_id) is None


async def test_a_store_of_its_own_that_knows_no_users_is_still_scoped() -> None:
    class OldStore(MemoryThreadStore):
        """A store written for the first contract: list_threads(agent) only, no owner()."""

        def list_threads(self, agent: str | None = None) -> list[Any]:  # type: ignore[override]
            return super().list_threads(agent)

        owner = None  # type: ignore[assignment]

    app = create_app(DemoAgent(delay=0), auth=TOKENS, store=OldStore())
    alices = fresh_input("add buy milk")
    async with client_of(app) as client:
        await client.post("/", json=body(alices), headers=bearer(TOKENS["alice"]))
        bob_list = (await client.get("/threads", headers=bearer(TOKENS["bob"]))).json()["threads"]
        continued = await client.post("/", json=body(alices), headers=bearer(TOKENS["bob"]))
    assert bob_list == [] and continued.status_code == 403


async def test_a_chat_in_the_kernel_with_a_token_talks_to_a_protected_server() -> None:
    app = create_app({"demo": DemoAgent(delay=0), "echo": lambda messages: "echo: " + messages[-1]["content"]}, auth=TOKENS)
    with live_server(app) as url:
        chat = AgentChat(url, headers={"Authorization": f"Bearer {TOKENS['alice']}"})
        assert chat.agent_names == ["demo", "echo"]  # the agent list, asked for with the token
        run = await asyncio.wait_for(chat.send("weather in Lisbon"), 30)
        assert run.status == "finished" and "Lisbon" in run.reply
        chat.agent = "echo"
        echoed = await asyncio.wait_for(chat.send("hi there"), 30)
        assert echoed.reply == "echo: hi there"
        stranger = AgentChat(url + "/agents/demo")
        refused = await asyncio.wait_for(stranger.send("hello"), 30)
    assert refused.status == "error" and stranger.error.startswith("The agent at") and "401" in stranger.error
    with pytest.raises(TypeError, match="headers= is for an agent given by its URL"):
        AgentChat(DemoAgent(), headers={"Authorization": "Bearer x"})


def test_a_tokens_file_is_user_and_token_per_line_or_json(tmp_path: Path) -> None:
    lines = tmp_path / "tokens.txt"
    lines.write_text("# class of 2026\nalice tok-alice-7f3a\n\nbob   tok-bob-91c2  # second row\n")
    assert read_tokens(lines) == TOKENS
    as_json = tmp_path / "tokens.json"
    as_json.write_text('{"alice": "tok-alice-7f3a", "bob": "tok-bob-91c2"}')
    assert read_tokens(as_json) == TOKENS
    for text, says in (("alice\n", "line 1"), ("alice a\nalice b\n", "listed twice"), ("# nobody\n", "no tokens")):
        bad = tmp_path / "bad.txt"
        bad.write_text(text)
        with pytest.raises(SystemExit, match=says):
            read_tokens(bad)
    with pytest.raises(SystemExit, match="cannot read"):
        read_tokens(tmp_path / "missing.txt")


def test_the_serve_command_takes_its_token_from_the_environment(tmp_path: Path) -> None:
    with serve_command([], tmp_path, {"AGUI_WIDGET_TOKEN": "from-the-env"}) as url:
        assert httpx.post(url, json=body(make_input("hi")), timeout=10).status_code == 401
        answered = httpx.post(url, json=body(make_input("weather in Oslo")), headers=bearer("from-the-env"), timeout=30)
        assert answered.status_code == 200 and "Oslo" in text_of(parse_sse(answered.text))


def test_two_serve_processes_on_one_postgresql_serve_one_class(tmp_path: Path, postgres_dsn: str) -> None:
    """The deployment docs/remote.md describes: two servers, one database, a token per student."""
    (tmp_path / "class.tokens").write_text("".join(f"{name} {token}\n" for name, token in TOKENS.items()))
    args = ["--store", postgres_dsn, "--tokens", "class.tokens"]
    with serve_command(args, tmp_path) as one, serve_command(args, tmp_path) as two:
        alices, bobs = fresh_input("add buy milk"), fresh_input("add call mum")
        assert httpx.post(one, json=body(alices), headers=bearer(TOKENS["alice"]), timeout=30).status_code == 200
        assert httpx.post(two, json=body(bobs), headers=bearer(TOKENS["bob"]), timeout=30).status_code == 200
        saved = httpx.get(f"{two}/threads/{alices.thread_id}", headers=bearer(TOKENS["alice"]), timeout=10).json()
        more = make_input([*saved["messages"], user("show my list")], state=saved["state"])
        more = more.model_copy(update={"thread_id": alices.thread_id})
        assert httpx.post(two, json=body(more), headers=bearer(TOKENS["alice"]), timeout=30).status_code == 200
        for url in (one, two):
            mine = httpx.get(f"{url}/threads", headers=bearer(TOKENS["alice"]), timeout=10).json()["threads"]
            theirs = httpx.get(f"{url}/threads", headers=bearer(TOKENS["bob"]), timeout=10).json()["threads"]
            assert [t["threadId"] for t in mine] == [alices.thread_id]
            assert [t["threadId"] for t in theirs] == [bobs.thread_id]
            assert httpx.get(f"{url}/threads/{alices.thread_id}", headers=bearer(TOKENS["bob"]), timeout=10).status_code == 403
        again = httpx.get(f"{one}/threads/{alices.thread_id}", headers=bearer(TOKENS["alice"]), timeout=10).json()
        assert len(again["messages"]) == 4


async def test_a_chat_in_a_real_kernel_with_its_token_chats_with_a_protected_server(tmp_path: Path) -> None:
    """The notebook side as a user has it: an ipykernel, a view asking, the server in a process of its own."""
    from .kernel_harness import FakeFrontEnd

    (tmp_path / "class.tokens").write_text(f"alice {TOKENS['alice']}\n")
    with serve_command(["--tokens", "class.tokens"], tmp_path) as url:
        async with FakeFrontEnd.running() as fe:
            chat = await fe.create_widget(
                "from agui_widget import AgentChat\n"
                f"chat = AgentChat({url!r}, headers={{'Authorization': 'Bearer {TOKENS['alice']}'}})\n"
            )
            fe.send_custom(chat, {"kind": "send", "text": "weather in Lisbon"})  # as the view sends it
            await fe.execute(
                "import asyncio\n"
                "for _ in range(300):\n"
                "    if len(chat.messages) >= 2 and chat.status == 'idle':\n"
                "        break\n"
                "    await asyncio.sleep(0.1)\n",
                timeout=40,
            )
            reply = await fe.evaluate("chat.messages[-1]['content']")
            result = await fe.execute(
                f"stranger = AgentChat({url!r})\nrun = await stranger.send('hello')\nprint(run.status, stranger.error)",
                timeout=30,
            )
    assert "Lisbon" in reply
    assert result.stdout.startswith("error The agent at") and "401" in result.stdout
