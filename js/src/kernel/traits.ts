/** The synced traitlets of docs/wire.md, parsed once per change, with listeners per name. */
import type { AnyModel, ModelCallback } from "../anywidget";
import { TRAIT_NAMES, type TraitName, type Traits, parseTrait } from "./wire";

export class TraitStore {
  private values: Partial<Traits> = {};
  private listeners = new Map<TraitName, Set<() => void>>();
  private unhook: Array<() => void> = [];

  constructor(private readonly model: AnyModel) {
    for (const name of TRAIT_NAMES) {
      const onChange: ModelCallback = () => {
        delete this.values[name];
        for (const listener of [...(this.listeners.get(name) ?? [])]) listener();
      };
      model.on(`change:${name}`, onChange);
      this.unhook.push(() => model.off(`change:${name}`, onChange));
    }
  }

  get<K extends TraitName>(name: K): Traits[K] {
    if (!(name in this.values)) this.values[name] = parseTrait(name, this.model.get(name));
    return this.values[name] as Traits[K];
  }

  subscribe(name: TraitName, listener: () => void): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  dispose(): void {
    for (const off of this.unhook) off();
    this.unhook = [];
    this.listeners.clear();
  }
}
