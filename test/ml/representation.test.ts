import { describe, expect, it } from "vitest";
import type { Frame } from "../../src/ml/frame";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";
import {
  addEncoderSteps,
  buildRepresentation,
  buildRepresentationSteps,
  deriveModelFeatures,
  lacksEncoder,
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

  it("without its encoder: the layout only; the encoder added later is the one a whole build trains", () => {
    const f = frame(300);
    const lazy = buildRepresentation(f, { encoder: false });
    expect(lacksEncoder(lazy)).toBe(true);
    const eager = buildRepresentation(f);
    expect(eager.layout).toEqual(eager.encoder!.features);
    expect(lazy.layout).toEqual(eager.layout);
    const steps = addEncoderSteps(f, parseRepresentation(serializeRepresentation(lazy))!);
    let n = 0;
    for (let r = steps.next(); ; r = steps.next(), n++) {
      if (r.done) {
        expect(r.value).toEqual(eager);
        break;
      }
    }
    expect(n).toBe(plannedSslSteps(f));
    expect([...addEncoderSteps(f, eager)]).toEqual([]);
  });

  it("has no layout and needs no encoder when there is nothing to encode", () => {
    const one = buildRepresentation({ ...frame(1) });
    expect(one.layout).toBeNull();
    expect(one.encoder).toBeNull();
    expect(lacksEncoder(one)).toBe(false);
  });

  it("reads a representation-v2 (its encoder always built) with the layout taken from the encoder", () => {
    const { layout, seed: _seed, ...rest } = buildRepresentation(frame(300));
    const v2 = { ...rest, format: "representation-v2" };
    const back = parseRepresentation(JSON.stringify(v2))!;
    expect(back.format).toBe("representation-v4");
    expect(back.layout).toEqual(layout);
    expect(back.encoder).toEqual(v2.encoder);
    expect(back.seed).toBe(0);
  });

  it("plans as many ssl steps as building it yields", () => {
    const f = frame(300);
    const steps = [...buildRepresentationSteps(f)];
    // a column step per column described (the featurizer), then per column profiled, then the encoder's
    const columnSteps = 2 * f.columns.length;
    expect(steps.slice(0, columnSteps).every((s) => s.phase === "column")).toBe(true);
    expect(steps.length).toBe(columnSteps + plannedSslSteps(f));
    expect(steps.slice(columnSteps).every((s) => s.phase === "ssl")).toBe(true);
  });
});
