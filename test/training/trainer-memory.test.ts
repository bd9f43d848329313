import { describe, expect, it } from "vitest";
import { trainerMemoryBytes } from "../../src/container/trainer-memory";

const GiB = 1024 ** 3;
const machine = { total: 24 * GiB, constrained: 0 };

describe("the trainer's memory", () => {
  it("is the machine's when nothing limits the process", () => {
    expect(trainerMemoryBytes({}, machine)).toBe(24 * GiB);
  });

  it("is the cgroup's limit when there is one", () => {
    expect(trainerMemoryBytes({}, { total: 24 * GiB, constrained: 6 * GiB })).toBe(6 * GiB);
  });

  it("ignores a constraint larger than the machine (Node's answer for none)", () => {
    expect(trainerMemoryBytes({}, { total: 24 * GiB, constrained: 2 ** 64 })).toBe(24 * GiB);
  });

  it("is TRAINER_MEMORY_MB when it is set", () => {
    expect(trainerMemoryBytes({ TRAINER_MEMORY_MB: "6144" }, machine)).toBe(6 * GiB);
  });

  it("refuses a TRAINER_MEMORY_MB that is not a positive number", () => {
    expect(() => trainerMemoryBytes({ TRAINER_MEMORY_MB: "6G" }, machine)).toThrow(/TRAINER_MEMORY_MB/);
  });
});
