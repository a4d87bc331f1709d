/**
 * Positions in PostgreSQL's write-ahead log (pg_lsn), as the bigint byte offsets the read fence
 * compares (replica-reads.ts). Queries give them as `(<lsn> - '0/0'::pg_lsn)::text`, a decimal
 * number of bytes (https://www.postgresql.org/docs/15/datatype-pg-lsn.html: subtracting two
 * positions gives the bytes between them), so no hexadecimal text is parsed here.
 */

/** The SQL that gives the position `expression` (a pg_lsn) as decimal text of bytes, or null. */
export function walBytesSql(expression: string): string {
  return `(${expression} - '0/0'::pg_lsn)::text`;
}

/** A position read with {@link walBytesSql}; undefined for null (no position: not a standby, or nothing replayed yet). */
export function walPosition(text: string | null | undefined): bigint | undefined {
  return text === null || text === undefined ? undefined : BigInt(text.split(".")[0]!);
}

/** The position as PostgreSQL writes a pg_lsn (`16/B374D848`), for logs and /readyz. */
export function walText(position: bigint): string {
  return `${(position >> 32n).toString(16).toUpperCase()}/${(position & 0xffffffffn).toString(16).toUpperCase()}`;
}
