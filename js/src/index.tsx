/**
 * The anywidget entry: `render({ model, el })` mounts one chat view and returns its cleanup.
 *
 * Each view has its own viewId and mirror. On render it says `hello`; the kernel answers with a
 * snapshot addressed to it; the view then follows live messages (docs/wire.md).
 */
import { render } from "preact";
import { showAccent } from "./page/accent";
import type { RenderProps } from "./anywidget";
import { Connection } from "./kernel/connection";
import { HandlerRunner } from "./page/handlers";
import { echoRevisions } from "./kernel/revisionEcho";
import { hideSavedOutput } from "./page/savedOutput";
import "./styles.css";
import { App } from "./view/App";
import { Follower } from "./view/context";

function renderChat({ model, el }: RenderProps): () => void {
  const root = document.createElement("div");
  root.className = "agui-widget";
  el.appendChild(root);
  const conn = new Connection(model);
  const runner = new HandlerRunner(conn);
  const hideAccent = showAccent(conn, root);
  const showSavedOutput = hideSavedOutput(conn.traits.get("saved_output_id"));
  const stopEchoing = echoRevisions(model);
  render(<App ctx={{ conn, runner, follower: new Follower() }} />, root);
  conn.start();
  runner.check();
  return () => {
    showSavedOutput();
    stopEchoing();
    render(null, root);
    runner.dispose();
    hideAccent();
    conn.dispose();
    root.remove();
  };
}

export default { render: renderChat };
