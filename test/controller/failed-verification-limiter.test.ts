import { describe, expect, it } from "vitest";
import { FailedVerificationLimiter } from "../../runtime/controller/auth/failed-verification-limiter.ts";

describe("failed token verifications per source (issue 15 item 8)", () => {
  it("allows a burst, then one failure per refill, per source", () => {
    const limiter = new FailedVerificationLimiter({ burst: 3, perSecond: 2, maxSources: 10 });
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfter("a", t0)).toBe(0);
      limiter.fail("a", t0);
    }
    expect(limiter.retryAfter("a", t0)).toBe(1);
    expect(limiter.retryAfter("b", t0)).toBe(0);
    // Half a second refills one failure at two a second.
    expect(limiter.retryAfter("a", t0 + 499)).toBe(1);
    expect(limiter.retryAfter("a", t0 + 500)).toBe(0);
    limiter.fail("a", t0 + 500);
    expect(limiter.retryAfter("a", t0 + 500)).toBe(1);
    // Refilling stops at the burst.
    expect(limiter.retryAfter("a", t0 + 3_600_000)).toBe(0);
    for (let i = 0; i < 3; i++) limiter.fail("a", t0 + 3_600_000);
    expect(limiter.retryAfter("a", t0 + 3_600_000)).toBeGreaterThan(0);
  });

  it("tracks at most maxSources sources, dropping the one that failed least recently", () => {
    const limiter = new FailedVerificationLimiter({ burst: 1, perSecond: 0.001, maxSources: 100 });
    for (let i = 0; i < 10_000; i++) limiter.fail(`10.0.${i >> 8}.${i & 255}`, 0);
    expect(limiter.size).toBe(100);
    // The most recent are still limited; the oldest were forgotten.
    expect(limiter.retryAfter("10.0.39.15", 0)).toBeGreaterThan(0);
    expect(limiter.retryAfter("10.0.0.0", 0)).toBe(0);
  });
});
