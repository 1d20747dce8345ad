/** The errors of issue 44's contract (section 3 and 7); node-redis' own errors pass through. */

export class RsbloomError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A reserve found the name taken (`ERR item exists`): nothing of the other filter was changed. */
export class FilterExistsError extends RsbloomError {}

/** The logical filter's description does not exist. */
export class FilterNotFoundError extends RsbloomError {}

/** The description names a protocol, family or routing this client does not know. */
export class UnknownProtocolError extends RsbloomError {}

/**
 * A batch where some positions were not applied or have an unknown outcome. Every command of
 * the batch was waited for: `results` holds every answer that came, in the caller's order
 * (`null` where not applied or unknown), `unknown` the sorted positions whose outcome is
 * unknown (a once-only write whose reply was lost), `failed` the positions not applied with
 * their causes.
 */
export class BatchError<T = unknown> extends RsbloomError {
  readonly results: (T | null)[];
  readonly unknown: number[];
  readonly failed: Map<number, Error>;

  constructor(message: string, results: (T | null)[], unknown: number[], failed: Map<number, Error>) {
    super(message);
    this.results = results;
    this.unknown = [...unknown].sort((a, b) => a - b);
    this.failed = new Map([...failed].sort((a, b) => a[0] - b[0]));
  }

  /**
   * The right kind for these outcomes (section 3's precedence): any unknown position ->
   * AmbiguousWriteError; else every failure a full shard's refusal -> FilterFullError; else
   * BatchError.
   */
  static of<T>(what: string, results: (T | null)[], unknown: number[], failed: Map<number, Error>): BatchError<T> {
    const causes = [...new Set([...failed.values()].map((e) => e.message))].slice(0, 3);
    const tail = causes.length > 0 ? `: ${causes.join('; ')}` : '';
    if (unknown.length > 0) {
      return new AmbiguousWriteError(
        `${what}: the outcome of ${unknown.length} item(s) is unknown (the reply to a write that ` +
          `must run once was lost; it was not sent again)` +
          (failed.size > 0 ? `, ${failed.size} failed${tail}` : ''),
        results, unknown, failed,
      );
    }
    if (failed.size > 0 && [...failed.values()].every(isFull)) {
      return new FilterFullError(`${what}: ${failed.size} item(s) refused by a full shard${tail}`, results, unknown, failed);
    }
    return new BatchError(`${what}: ${failed.size} item(s) failed${tail}`, results, unknown, failed);
  }
}

/** Every failed position was refused by a full shard (a non-scaling Bloom shard, a cuckoo shard with no room). */
export class FilterFullError<T = unknown> extends BatchError<T> {}

/** Some positions' outcome is unknown; `failed` may also hold positions. */
export class AmbiguousWriteError<T = unknown> extends BatchError<T> {}

/** A full shard's refusal, as a cause in `failed`. */
export class ShardFullError extends RsbloomError {}

function isFull(e: Error): boolean {
  return e instanceof ShardFullError;
}
