/**
 * Every model type of the service, listed once: a new type is one module (./contract) and one
 * line here. The order is the API's: the `model_type` enum and each per-type list of the
 * document follow it.
 */
import { anomaly } from "./anomaly";
import { causal } from "./causal";
import { clustering } from "./clustering";
import type { ModelTypeModule } from "./contract";
import { embedding } from "./embedding";
import { factors } from "./factors";
import { prediction } from "./prediction";
import { search } from "./search";

/** @internal exported so that a test can build a registry with a type of its own (test/model-types/toy-type.test.ts) */
export const MODEL_TYPE_MODULES = [prediction, anomaly, embedding, clustering, factors, search, causal] as const;

export type ModelType = (typeof MODEL_TYPE_MODULES)[number]["name"];
/** The `model_type` values, in the API's order. */
export const MODEL_TYPES: readonly ModelType[] = MODEL_TYPE_MODULES.map((m) => m.name);

/** A registry: the product's, or one a test builds with a type of its own. */
export class ModelTypeRegistry {
  private readonly byName: ReadonlyMap<string, ModelTypeModule>;

  constructor(readonly modules: readonly ModelTypeModule[]) {
    this.byName = new Map(modules.map((m) => [m.name, m]));
    if (this.byName.size !== modules.length) throw new Error("two model type modules share a name");
  }

  /** The module of `name`, or undefined for a type this service does not have. */
  find(name: string | null | undefined): ModelTypeModule | undefined {
    return name == null ? undefined : this.byName.get(name);
  }

  /** The types whose label is a target a model shows as its `label_column` (a causal model's outcome is in its summary instead). */
  get targetLabelled(): string[] {
    return this.modules.filter((m) => m.request.label === "target").map((m) => m.name);
  }

  /**
   * The types whose rows can be explained, those learning from a label first: the order messages
   * and the document list them in ("prediction, causal, anomaly, clustering").
   */
  get explainable(): string[] {
    const explained = this.modules.filter((m) => m.explain);
    return [...explained.filter((m) => m.request.label), ...explained.filter((m) => !m.request.label)].map((m) => m.name);
  }
}

export const modelTypes = new ModelTypeRegistry(MODEL_TYPE_MODULES);
