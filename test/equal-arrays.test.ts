/** The fast path of ./equal-arrays never makes vitest's deep equality accept what it refused. */
import { expect, it } from "vitest";

const big = Array.from({ length: 100 }, (_, i) => i);

it("equal long arrays and typed arrays are equal", () => {
  expect(big).toEqual([...big]);
  expect([...big, Number.NaN]).toEqual([...big, Number.NaN]);
  expect(Float64Array.from(big)).toEqual(Float64Array.from(big));
  expect({ codes: Int32Array.from(big), dictionary: big.map(String) }).toEqual({ codes: Int32Array.from(big), dictionary: big.map(String) });
});

it("one differing element, -0 against 0, or another array type is still a difference", () => {
  expect(() => expect(big).toEqual([...big.slice(0, 99), -1])).toThrow();
  expect(() => expect([...big, 0]).toEqual([...big, -0])).toThrow();
  expect(() => expect(Float64Array.from(big)).toEqual(Float32Array.from(big))).toThrow();
  expect(() => expect(Float64Array.from([0])).toEqual(Float64Array.from([-0]))).toThrow();
  expect(() => expect(Int32Array.from(big)).toEqual(Int32Array.from([...big.slice(1), 0]))).toThrow();
});

it("leaves asymmetric matchers to vitest", () => {
  expect([...big, "x"]).toEqual([...big, expect.any(String)]);
  expect(() => expect([...big, 1]).toEqual([...big, expect.any(String)])).toThrow();
});
