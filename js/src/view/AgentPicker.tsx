/** The agent picker: a select in the toolbar when the chat has several agents.
 *
 * The kernel decides: picking sends `select_agent`, and the select shows the `agent_name` trait,
 * so a pick the kernel refuses (a run is active) snaps back and the refusal arrives as a notice. */
import { useView } from "./context";
import { useTrait } from "./hooks";
import { useLive } from "./KernelBanner";

export function AgentPicker() {
  const { conn } = useView();
  const names = useTrait("agent_names");
  const active = useTrait("agent_name");
  const status = useTrait("status");
  const live = useLive(); // every hook before the early return: their number never changes
  if (names.length < 2) return null;
  const busy = status === "running" || status === "waiting";
  return (
    <label class="agui-agent-picker" title={busy ? "Agents can be switched once the run ends" : "Pick the agent to talk to"}>
      <span class="agui-agent-picker-text">Agent</span>
      <select
        class="agui-agent-select"
        aria-label="Agent"
        value={active}
        disabled={busy || !live}
        onChange={(event) => {
          const select = event.currentTarget;
          const name = select.value;
          select.value = active; // shown once the kernel has switched (the trait changes)
          if (name !== active) conn.send({ kind: "select_agent", name });
        }}
      >
        {names.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}
