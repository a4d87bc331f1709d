/**
 * A token bucket per source address for failed token verifications (issue 15): a source may fail
 * `burst` times at once and then `perSecond` times a second; past that, tokens it presents that
 * the controller has not verified already are answered 429 without being checked. Only failures
 * take from the bucket, so a source that presents good tokens is never slowed. Memory is bounded:
 * at most `maxSources` sources are tracked, the one that failed least recently going first.
 */

/** The limits of {@link FailedVerificationLimiter}. */
export interface FailedVerificationLimit {
  /** Failures a source may have at once (the bucket's size). Default 20. */
  readonly burst: number;
  /** Failures a second a source may have over time (the refill rate). Default 2. */
  readonly perSecond: number;
  /** Sources tracked at once. Default 10,000. */
  readonly maxSources: number;
}

/** Defaults of {@link FailedVerificationLimit}. */
export const DEFAULT_FAILED_VERIFICATION_LIMIT: FailedVerificationLimit = {
  burst: 20,
  perSecond: 2,
  maxSources: 10_000,
};

interface Bucket {
  tokens: number;
  at: number;
}

/** Counts failed verifications per source. */
export class FailedVerificationLimiter {
  /** In order of last failure: the first entry is the one to drop when full. */
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly limit: FailedVerificationLimit = DEFAULT_FAILED_VERIFICATION_LIMIT) {}

  /** Whole seconds until `source` may present an unverified token again; 0 when it may now. */
  retryAfter(source: string, now = Date.now()): number {
    const bucket = this.buckets.get(source);
    if (!bucket) return 0;
    const tokens = this.refilled(bucket, now);
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.limit.perSecond));
  }

  /** Takes one failure from `source`'s bucket. */
  fail(source: string, now = Date.now()): void {
    const bucket = this.buckets.get(source);
    const tokens = bucket ? this.refilled(bucket, now) : this.limit.burst;
    this.buckets.delete(source);
    if (this.buckets.size >= this.limit.maxSources) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(source, { tokens: Math.max(0, tokens - 1), at: now });
  }

  /** Sources tracked now (for tests of the bound). */
  get size(): number {
    return this.buckets.size;
  }

  private refilled(bucket: Bucket, now: number): number {
    return Math.min(this.limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.limit.perSecond);
  }
}
