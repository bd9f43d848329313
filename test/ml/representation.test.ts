import { describe, expect, it } from "vitest";
import type { Frame } from "../../src/ml/frame";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";
import {
  buildRepresentation,
  buildRepresentationSteps,
  deriveModelFeatures,
  parseRepresentation,
  plannedSslSteps,
  serializeRepresentation,
} from "../../src/ml/representation/representation";
import { embedFrame } from "./helpers/engine-scores";

function frame(n = 600): Frame {
  const rng = new Rng(3);
  const x = Float64Array.from({ length: n }, () => rng.next());
  const z = Float64Array.from({ length: n }, () => rng.next());
  const cat = Int32Array.from({ length: n }, () => rng.int(3));
  const y = Float64Array.from({ length: n }, (_, i) => 2 * x[i] + cat[i] + 0.1 * rng.next());
  return {
    rowCount: n,
    columns: [
      { name: "x", kind: "numeric", storage: "numeric", values: x },
      { name: "z", kind: "numeric", storage: "numeric", values: z },
      { name: "g", kind: "categorical", storage: "dictionary", codes: cat, dictionary: ["a", "b", "c"] },
      { name: "y", kind: "numeric", storage: "numeric", values: y },
    ],
  };
}

describe("representation", () => {
  it("round-trips through JSON with profile, featurizer and bins", () => {
    const rep = buildRepresentation(frame());
    const back = parseRepresentation(serializeRepresentation(rep));
    expect(back).toEqual(rep);
    expect(rep.profile.map((c) => c.name)).toEqual(["x", "z", "g", "y"]);
    expect(rep.profile[2].top_values?.length).toBe(3);
    expect(rep.bins.length).toBe(rep.featurizer.features.length);
    expect(rep.bins[2]).toEqual({ kind: "categorical", codes: [0, 1, 2] });
  });

  it("derives a model's features: label and non-inputs removed, bins kept", () => {
    const rep = buildRepresentation(frame());
    const { featurizer, bins } = deriveModelFeatures(rep, "y", ["x", "g"]);
    expect(featurizer.features.map((f) => f.name)).toEqual(["x", "g"]);
    expect(bins).toEqual([rep.bins[0], rep.bins[2]]);
    expect(featurizer.columns.find((c) => c.name === "y")!.reason).toBe("label column");
  });

  it("a second model on a stored representation equals one trained from scratch", () => {
    const f = frame();
    const first = trainPredictionModel(f, { labelColumn: "y", params: { max_rounds: 20 } });
    const stored = parseRepresentation(serializeRepresentation(first.representation));
    const second = trainPredictionModel(f, { labelColumn: "y", params: { max_rounds: 20 }, representation: stored! });
    expect(second.model).toEqual(first.model);
  });

  it("round-trips through JSON.stringify with an encoder that embeds identically", () => {
    const f = frame();
    const rep = buildRepresentation(f);
    const back = parseRepresentation(JSON.stringify(rep))!;
    expect(rep.encoder?.embedding).toBe(16);
    expect(embedFrame(back, f)).toEqual(embedFrame(rep, f));
  });

  it("treats a representation-v1 (no encoder) or a damaged file as absent", () => {
    const { encoder: _encoder, ...v1 } = { ...buildRepresentation(frame(100)), format: "representation-v1" };
    expect(parseRepresentation(JSON.stringify(v1))).toBeNull();
    expect(parseRepresentation(v1)).toBeNull();
    expect(parseRepresentation("{not json")).toBeNull();
  });

  it("plans as many ssl steps as building it yields", () => {
    const f = frame(300);
    const steps = [...buildRepresentationSteps(f)];
    expect(steps.length).toBe(plannedSslSteps(f));
    expect(steps.every((s) => s.phase === "ssl")).toBe(true);
  });
});
