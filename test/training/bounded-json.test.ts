import { describe, expect, it } from "vitest";
import { boundedJson } from "../../src/container/bounded-json";

describe("boundedJson", () => {
  it("keeps an object that fits as it is", () => {
    const o = { a: 1, b: [1, 2, 3] };
    expect(boundedJson(o, 1000, "see elsewhere")).toBe(o);
  });

  it("replaces the largest fields by a note until the object fits", () => {
    const o = { small: 1, big: "x".repeat(5000), medium: "y".repeat(500) };
    const out = boundedJson(o, 1000, "see the artifact");
    expect(out.small).toBe(1);
    expect(out.medium).toBe(o.medium);
    expect(out.big).toBe("omitted here (5002 bytes of JSON): see the artifact");
    expect(JSON.stringify(out).length).toBeLessThanOrEqual(1000);
  });
});
