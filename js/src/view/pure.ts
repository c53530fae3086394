/** A component that re-renders only when its props change (shallow), or when it subscribed to
 * something that changed. Preact's core has no `memo`; this is the same idea in a few lines. */
import { Component, type ComponentChild, type FunctionComponent, h } from "preact";

function shallowEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  for (const key in a) if (key !== "children" && a[key] !== b[key]) return false;
  for (const key in b) if (key !== "children" && !(key in a)) return false;
  return true;
}

export function pure<P extends object>(render: FunctionComponent<P>): FunctionComponent<P> {
  class Pure extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      return !shallowEqual(this.props as Record<string, unknown>, next as Record<string, unknown>);
    }
    override render(props: P): ComponentChild {
      return h(render as FunctionComponent<object>, props as object);
    }
  }
  (Pure as unknown as { displayName: string }).displayName = render.displayName ?? render.name;
  return Pure as unknown as FunctionComponent<P>;
}
