"""A Langroid ``ChatAgent`` as an AG-UI run: the loop of model calls and tool rounds, driven here
through Langroid's async API. Imports Langroid, so it loads only with an agent.

One AG-UI run, step by step:

1. rebuild ``agent.message_history`` from the transcript, with the application's context and the
   current state in the prompt;
2. ``await agent.llm_response_async(...)`` as a task, while Langroid's streaming callback hands
   every token over a queue: text becomes TEXT_MESSAGE_CONTENT (with tool JSON held back in JSON
   mode), reasoning becomes REASONING events, streamed tool arguments feed ``state_from_args``;
3. every tool call in the response becomes TOOL_CALL_START/ARGS/END with the response's ids;
   backend tools run through Langroid's own dispatch (``handle_tool_message_async``), each giving
   TOOL_CALL_RESULT; frontend tools (``RunAgentInput.tools``) end the run with the call pending;
4. repeat until the model answers without tools.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from langroid.agent.chat_agent import ChatAgent
from langroid.agent.chat_document import ChatDocument
from langroid.language_models.base import StreamEventType
from langroid.utils.object_registry import ObjectRegistry

from .._base import EventStream, new_id
from . import _quiet
from ._agents import check_ready, lock_for
from ._calls import Call, handler_result
from ._driver import AgentDriver, Step
from ._frontend import AgentSetup
from ._history import reasoning_metadata, transcript_of
from ._run_context import DONE, RunContext, RunOptions


async def run(options: RunOptions, agent: ChatAgent, input: RunAgentInput, stream: EventStream) -> AsyncGenerator[Any, None]:
    """The run's events, once the agent is free (runs on one agent take turns). Closing it closes the
    run at once, so the agent is put back before another run can take it."""
    async with lock_for(agent), aclosing(AgentRun(options, agent, input, stream).events()) as events:
        async for emitted in events:
            yield emitted


class AgentRun:
    """One run of one agent (see the module's docstring)."""

    def __init__(self, options: RunOptions, agent: ChatAgent, input: RunAgentInput, stream: EventStream) -> None:
        self.options = options
        self.agent = agent
        self.stream = stream
        self.run_context = RunContext(options, input, stream)
        self.driver = AgentDriver(self.run_context, agent)
        self.transcript = transcript_of(input)
        self.setup = AgentSetup(agent)

    async def events(self) -> AsyncGenerator[Any, None]:
        check_ready(self.agent)
        setup = self.setup
        _quiet.acquire()
        try:
            setup.apply(self.run_context.input)
            self.driver.frontend = setup.frontend
            async with aclosing(self._turns()) as turns:
                async for emitted in turns:
                    yield emitted
        finally:
            setup.undo()
            _quiet.release()

    async def _turns(self) -> AsyncGenerator[Any, None]:
        """Model calls and tool rounds until the model answers (or a frontend tool must)."""
        driver = self.driver
        # Langroid looks for tools written into the reply; the text is screened for them while it
        # streams when the model was told about any.
        content_tools, screening = driver.content_tools, driver.screens_text
        for _ in range(self.options.max_turns):
            step = Step()
            async with aclosing(self._model_call(step, screening)) as model_call:
                async for emitted in model_call:
                    yield emitted
            response = step.response
            assert response is not None
            try:
                calls = driver.calls(response, content_tools)
                self.transcript.append(
                    {
                        "id": step.message_id,
                        "role": "assistant",
                        "content": "".join(step.text),
                        **(
                            {"metadata": reasoning_metadata(response.content_with_reasoning)}
                            if response.content_with_reasoning
                            else {}
                        ),
                        "toolCalls": [
                            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.args_text}}
                            for c in calls
                        ],
                    }
                )
                if not calls:
                    return
                for call in calls:
                    yield call.events(self.stream, step.message_id)
                    await self.run_context.state_from_args(
                        call.name, call.args, call.args_text, call.id, call.tool, partial=False
                    )
                    yield self.run_context.drain()
                done_text: str | None = None
                for call in calls:
                    if call.frontend:
                        continue
                    outcome: list[Any] = []
                    async with aclosing(self._handle(call, response, outcome)) as handling:
                        async for emitted in handling:
                            yield emitted
                    result_text, done = outcome
                    self.transcript.append({"id": new_id("tool"), "role": "tool", "toolCallId": call.id, "content": result_text})
                    if done is not None:
                        done_text = done
            finally:
                ObjectRegistry.remove(response.id())  # Langroid registers every response; let it go
            if any(call.frontend for call in calls):
                return  # the client answers them; the follow-up run continues from there
            if done_text is not None:
                if done_text:
                    yield self.stream.text(done_text, message_id=new_id("msg"))
                    yield self.stream.end_text()
                return
        raise RuntimeError(
            f"the agent kept calling tools for {self.options.max_turns} model calls in a row without answering; "
            "stopped to avoid a loop (LangroidAgent(max_turns=...) allows more)"
        )

    async def _model_call(self, step: Step, screening: bool) -> AsyncGenerator[Any, None]:
        agent, driver = self.agent, self.driver
        tokens: asyncio.Queue[Any] = asyncio.Queue()

        async def streamer(token: Any = "", event_type: Any = StreamEventType.TEXT, *args: Any, **kwargs: Any) -> None:
            tokens.put_nowait((event_type, token))

        async def start_stream(*args: Any, **kwargs: Any) -> Callable[..., Any]:
            return streamer

        trigger = driver.history(self.transcript)
        agent.callbacks.start_llm_stream_async = start_stream
        screen = driver.text_screen(screening)
        task = asyncio.ensure_future(_quiet.muted(agent.llm_response_async(trigger)))
        task.add_done_callback(lambda _: tokens.put_nowait(DONE))
        try:
            finished = False
            while not finished:
                batch = [await tokens.get()]
                while not tokens.empty():
                    batch.append(tokens.get_nowait())
                events: list[BaseEvent] = []
                for item in batch:
                    if item is DONE:
                        finished = True
                        break
                    events += await driver.on_token(step, screen, *item)
                events += self.run_context.drain()
                if events:
                    yield events
            step.response = task.result()
        finally:
            agent.callbacks.start_llm_stream_async = self.setup.callback
            if not task.done():
                task.cancel()
            ObjectRegistry.remove(trigger.id())
        response = step.response
        if response is None:
            raise RuntimeError(
                "the Langroid agent gave no response (llm_response_async returned None): its LLM may be missing, "
                "or the last message holds a tool call the agent must handle, not the model"
            )
        events = driver.after_call(step, screen, response)
        if events:
            yield events

    async def _handle(self, call: Call, response: ChatDocument, outcome: list[Any]) -> AsyncGenerator[Any, None]:
        """Run one backend tool call; ``outcome`` receives (result text, done text or None)."""
        agent, driver, run = self.agent, self.driver, self.run_context
        done: str | None = None
        value: Any = None
        handled = False
        if call.error is not None:
            text = call.error
        elif call.tool is None or not agent._tool_recipient_match(call.tool):
            text = f"The tool {call.name!r} is not handled by this agent."
        else:
            task = asyncio.ensure_future(driver.invoke(call, call.tool, response))
            task.add_done_callback(lambda _: run.outbox.put_nowait([]))
            try:
                while not task.done():
                    item = await run.outbox.get()  # the handler's events, live; [] when it ends
                    if item:
                        yield item
                extra = run.drain()
                if extra:
                    yield extra
                result, handled = task.result()
            finally:
                if not task.done():
                    task.cancel()
            if handled:
                text, value, done = handler_result(result)
            else:
                text = result
        shown = driver.result_event(call, call.tool, value, text, handled)
        yield [shown]
        if handled:
            assert isinstance(shown.content, str)  # EventStream.tool_result writes text
            await run.state_from_result(call, value, shown.content, shown.message_id)
            events = run.drain()
            if events:
                yield events
        outcome[:] = [shown.content, done]
