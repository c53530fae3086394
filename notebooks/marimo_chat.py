import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell(hide_code=True)
def _(mo):
    mo.md(
        r"""
    # An agent chat in marimo

    `AgentChat` is an anywidget, so marimo shows it like any other. Wrap it,
    `mo.ui.anywidget(AgentChat(...))`, and end the cell with it: it is then a marimo UI element,
    whose value changes when the agent, the chat or a cell changes the state, the transcript or the
    status. Runs are tasks on marimo's event loop, so the notebook keeps reacting while the agent
    works: move the slider below during an answer.

    The agent here is the built-in demo agent (no model, no key); say **help** in the chat. It can
    also call the two notebook functions given as tools: say `call double x=21`, or
    `call forget_todos` (which asks for your approval first).

    Run it as a notebook with `marimo edit notebooks/marimo_chat.py`, or as an app with
    `marimo run notebooks/marimo_chat.py`.
    """
    )
    return


@app.cell
def _():
    import marimo as mo

    from agui_widget import AgentChat, python_tool

    return AgentChat, mo, python_tool


@app.cell
def _(AgentChat, mo, python_tool):
    def double(x: int) -> int:
        """Twice x."""
        return 2 * x

    async def forget_todos() -> str:
        """Empty the to-do list in the shared state."""
        # async: it runs on the kernel's loop, where the chat's state may be changed
        chat.state = {**chat.state, "todos": []}
        return "The list is empty."

    chat = mo.ui.anywidget(AgentChat(tools=[double, python_tool(forget_todos, approve=True)], height=420))
    chat
    return (chat,)


@app.cell(hide_code=True)
def _(mo):
    mo.md(
        r"""
    ## Shared state, reactively

    A cell that reads the chat runs again whenever the agent, the chat's State panel or a cell
    changes the shared state (or the transcript, or the status): `chat.value` changes then, and
    `chat.state` is the state itself. Say *add buy milk* in the chat and watch the list below.
    """
    )
    return


@app.cell
def _(chat, mo):
    todos = (chat.state or {}).get("todos", [])
    mo.md(
        "**To-do list, read by a cell:** "
        + (", ".join(("~~" + t["text"] + "~~") if t.get("done") else t["text"] for t in todos) or "empty")
        + f" (revision {chat.value['revision']})"
    )
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(
        r"""
    A cell that assigns the state updates the chat too (its State panel, and what the agent is
    sent next): run `chat.state = {"todos": [{"text": "call mum", "done": False}]}` in a cell.

    ## The notebook stays live during a run
    """
    )
    return


@app.cell
def _(mo):
    slider = mo.ui.slider(1, 10, value=3, label="a slider")
    slider
    return (slider,)


@app.cell
def _(mo, slider):
    mo.md(f"The slider reads **{slider.value}**.")
    return


if __name__ == "__main__":
    app.run()
