import { describe, expect, it } from "vitest";
import { profileFrame } from "../../src/ml/profile";
import { csv } from "../ingest/helpers";

describe("profileFrame", () => {
  it("summarises numeric columns with min, max, mean, sample std and counts", async () => {
    const { frame } = await csv("x,c\n1,a\n2,a\n,b\n3,a\n3,b\n");
    const [, x] = profileFrame(frame);
    expect(x).toMatchObject({ name: "x", type: "numeric", missing_count: 1, distinct_count: 3, min: 1, max: 3, mean: 2.25, top_values: null });
    expect(x.std).toBeCloseTo(Math.sqrt(2.75 / 3), 12);
  });

  it("gives categorical columns their top 5 values with counts", async () => {
    const rows = ["a", "a", "a", "b", "b", "c", "d", "e", "f", "NA"].map((v, i) => `${v},${i}`).join("\n");
    const c = profileFrame((await csv(`c,n\n${rows}\n`)).frame)[1];
    expect(c).toMatchObject({ type: "categorical", missing_count: 1, distinct_count: 6, min: null, mean: null });
    expect(c.top_values).toEqual([
      { value: "a", count: 3 },
      { value: "b", count: 2 },
      { value: "c", count: 1 },
      { value: "d", count: 1 },
      { value: "e", count: 1 },
    ]);
  });

  it("gives datetime columns ISO min and max", async () => {
    const t = profileFrame((await csv("t,n\n2024-05-01,1\n2023-01-02T10:00:00Z,2\n,3\n")).frame)[1];
    expect(t).toMatchObject({ type: "datetime", min: "2023-01-02T10:00:00.000Z", max: "2024-05-01T00:00:00.000Z", missing_count: 1, mean: null });
  });

  it("gives boolean columns true/false counts and the share of true", async () => {
    const b = profileFrame((await csv("b,n\nyes,1\nno,2\nyes,3\n")).frame)[1];
    expect(b).toMatchObject({
      type: "boolean",
      distinct_count: 2,
      top_values: [
        { value: true, count: 2 },
        { value: false, count: 1 },
      ],
    });
    expect(b.mean).toBeCloseTo(2 / 3);
  });

  it("is JSON-safe: an all-missing column has nulls, never NaN", async () => {
    const p = profileFrame((await csv("e,n\n,1\nNA,2\n")).frame)[1];
    expect(p).toEqual({
      name: "e",
      type: "numeric",
      missing_count: 2,
      distinct_count: 0,
      min: null,
      max: null,
      mean: null,
      std: null,
      top_values: null,
    });
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
  });
});
